"""Adversarial tests: an injection corpus, a fooled model, and the defences that hold."""
