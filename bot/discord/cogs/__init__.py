"""Slash-command groups, one extension per group (each has `async def setup(bot)`)."""
