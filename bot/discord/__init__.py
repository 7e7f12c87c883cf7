"""The Discord front: a discord.py bot over the Discord-free game service (bot/app)."""
