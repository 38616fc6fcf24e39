"""Hippo terminal UI (Textual): ``HippoApp(engine, config, resume=False).run()``."""

from ui.app import HippoApp

__all__ = ["HippoApp"]
