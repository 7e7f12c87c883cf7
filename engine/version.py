"""The version of Mentat: its engine, its bot and the game files they write (engine/record.py)."""

__version__ = "0.2.0"
