"""Scheduled jobs (APScheduler) that call into the engine."""
