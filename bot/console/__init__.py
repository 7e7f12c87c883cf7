"""The local console front: `python -m bot.console` plays a game hot-seat through the same GameService and store
as the Discord bot, with a ConsoleGateway that prints channel posts and keeps each faction's DMs in an inbox."""
