"""The one SQLite file: connection and migrations."""
