"""Positions as data (docs/positions.md): the document's schema, its checks, loading and writing."""
