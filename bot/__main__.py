"""`python -m bot`: run the Discord bot. `python -m bot check`: validate the configuration, open (and migrate)
the database and print the slash-command tree, without connecting to Discord.

Exit status: 0 on success, 2 when the configuration (or the database path) is wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sqlite3
import sys

from bot.config import ConfigError, Settings

log = logging.getLogger("bot")


class RedactSecret(logging.Filter):
    """Defence in depth: a log line that would contain the token has it masked."""

    def __init__(self, secret: str):
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secret and self.secret in (message := record.getMessage()):
            record.msg, record.args = message.replace(self.secret, "**********"), ()
        return True


def configure_logging(settings: Settings) -> None:
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s")
    if settings.has_token:
        for handler in logging.getLogger().handlers:
            handler.addFilter(RedactSecret(settings.discord_token.get_secret_value()))


async def _open_store(settings: Settings):
    from bot.store.sqlite import SqliteGameStore

    try:
        return await SqliteGameStore.open(settings.database_path)
    except (OSError, sqlite3.Error) as error:
        raise ConfigError([f"DATABASE_PATH: cannot open {str(settings.database_path)!r}: {error}"]) from None


async def _check(settings: Settings) -> None:
    from bot.app.service import GameService
    from bot.discord.client import MentatBot
    from bot.discord.manifest import describe_tree, manifest_hash

    print("Configuration is valid.")
    print(f"  DISCORD_TOKEN: {'set' if settings.has_token else 'not set (needed to run the bot, not to check)'}")
    print(f"  DEV_GUILD_ID: {settings.dev_guild_id if settings.dev_guild_id is not None else 'not set (no sync)'}")
    print(f"  DATABASE_PATH: {settings.database_path}")
    print(f"  LOG_LEVEL: {settings.log_level}")
    store = await _open_store(settings)
    try:
        print(f"Database {settings.database_path} opened and migrated.")
        bot = MentatBot(GameService(store), dev_guild_id=settings.dev_guild_id)
        await bot.add_cogs()
        print(f"Command tree (manifest {manifest_hash(bot.tree)}):")
        for line in describe_tree(bot.tree):
            print(f"  {line}")
    finally:
        await store.close()


async def _run(settings: Settings) -> None:
    import discord

    from bot.app.service import GameService
    from bot.discord.client import MentatBot

    if not settings.has_token:
        raise ConfigError(["DISCORD_TOKEN: not set; put it in the environment or in .env to run the bot"])
    store = await _open_store(settings)
    try:
        bot = MentatBot(GameService(store), dev_guild_id=settings.dev_guild_id)
        async with bot:
            try:
                await bot.start(settings.discord_token.get_secret_value())
            except discord.LoginFailure:
                raise ConfigError(["DISCORD_TOKEN: Discord refused the token (is it the bot's token?)"]) from None
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Mentat, a Discord moderator for Dune.")
    parser.add_argument("command", nargs="?", choices=("run", "check"), default="run",
                        help="run the bot (default), or check the configuration and print the commands")
    parser.add_argument("--env-file", default=".env", help="the .env file to read if it exists (default .env)")
    args = parser.parse_args(argv)
    try:
        settings = Settings.load(env_file=args.env_file)
        configure_logging(settings)
        asyncio.run(_check(settings) if args.command == "check" else _run(settings))
    except ConfigError as error:
        print("Configuration problem:", file=sys.stderr)
        for problem in error.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
