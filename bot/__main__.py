"""`python -m bot`: run the Discord bot. `python -m bot check`: validate the configuration, open (and migrate)
the database and print the slash-command tree, without connecting to Discord. `python -m bot sync`: register the
commands with Discord globally now, changed or not (the bot itself syncs at start only when they changed).

`--shards 0-3 --shard-count 8`: run shards 0 to 3 of 8 in this process (discord.py's AutoShardedBot); other
processes run the others, all sharing one PostgreSQL database (DATABASE_URL). Each game belongs to the shard
of its guild, and only the process running that shard delivers its messages and runs its deadlines.

Exit status: 0 on success, 2 when the configuration (the database, the shards) is wrong, 1 when Discord refused
the sync.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sqlite3
import sys
from urllib.parse import unquote, urlsplit

import asyncpg

from bot.app.ports import ALL_SHARDS, Shards
from bot.config import ConfigError, Settings, shown_url

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
    from bot.store.opening import open_store

    try:
        return await open_store(settings.store_location)
    except (OSError, sqlite3.Error) as error:
        if settings.uses_postgres:
            raise ConfigError([_cannot_connect(settings, error)]) from None
        raise ConfigError([f"DATABASE_PATH: cannot open {str(settings.database_path)!r}: {error}"]) from None
    except (TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as error:
        raise ConfigError([_cannot_connect(settings, error)]) from None


def _cannot_connect(settings: Settings, error: Exception) -> str:
    """Why the PostgreSQL server refused us, without the URL's password (should the driver repeat it)."""
    url = settings.store_location
    reason = str(error) or type(error).__name__
    password = urlsplit(url).password
    if password:
        reason = reason.replace(password, "***").replace(unquote(password), "***")
    return f"DATABASE_URL: cannot use the PostgreSQL database at {shown_url(url)}: {reason}"


def parse_shards(text: str) -> frozenset[int]:
    """'0-3' or '0,2,5' or '1,4-6': the shard ids."""
    ids: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ConfigError([f"--shards: {text!r} is not a list of shard ids such as 0-3 or 0,2,5"])
        ids.update(range(int(first), int(last if dash else first) + 1))
    return frozenset(ids)


def shards_of(args: argparse.Namespace, settings: Settings) -> Shards:
    if args.shards is None and args.shard_count is None:
        return ALL_SHARDS
    if args.shard_count is None:
        raise ConfigError(["--shards needs --shard-count (how many shards the bot has in all)"])
    ids = parse_shards(args.shards) if args.shards is not None else frozenset(range(args.shard_count))
    try:
        shards = Shards(ids, args.shard_count)
    except ValueError as error:
        raise ConfigError([f"--shards: {error}"]) from None
    if not shards.everything and not settings.uses_postgres:
        raise ConfigError(["--shards: running some of the shards needs DATABASE_URL (PostgreSQL, which the "
                           "processes share); the SQLite store serves one process alone"])
    return shards


def _make_bot(service, settings: Settings, shards: Shards):
    from bot.discord.client import MentatBot, ShardedMentatBot

    if shards == ALL_SHARDS:
        return MentatBot(service, dev_guild_id=settings.dev_guild_id)
    return ShardedMentatBot(service, dev_guild_id=settings.dev_guild_id, shard_count=shards.count,
                            shard_ids=None if shards.everything else sorted(shards.ids))


async def _check(settings: Settings, shards: Shards) -> None:
    from bot.app.service import GameService
    from bot.discord.manifest import describe_tree, manifest_hash

    print("Configuration is valid.")
    print(f"  DISCORD_TOKEN: {'set' if settings.has_token else 'not set (needed to run the bot, not to check)'}")
    dev_guild = settings.dev_guild_id
    print(f"  DEV_GUILD_ID: {dev_guild if dev_guild is not None else 'not set (the commands are synced globally)'}")
    print(f"  Store: {settings.store_description}")
    print(f"  LOG_LEVEL: {settings.log_level}")
    print(f"  GAME_FILE_KEY: {'set' if settings.game_file_key else 'not set (written into .env at the first run)'}")
    if shards != ALL_SHARDS:
        print(f"  Shards: {', '.join(map(str, sorted(shards.ids)))} of {shards.count}")
    store = await _open_store(settings)
    try:
        if settings.uses_postgres:
            print("Connected to PostgreSQL; the database is migrated.")
        else:
            print(f"Database {settings.database_path} opened and migrated.")
        bot = _make_bot(GameService(store, shards=shards), settings, shards)
        await bot.add_cogs()
        print(f"Command tree (manifest {manifest_hash(bot.tree)}):")
        for line in describe_tree(bot.tree):
            print(f"  {line}")
    finally:
        await store.close()


async def _run(settings: Settings, shards: Shards, env_file: str | None) -> None:
    import discord

    from bot.app.service import GameService
    from bot.process import tune_garbage_collector

    if not settings.has_token:
        raise ConfigError(["DISCORD_TOKEN: not set; put it in the environment or in .env to run the bot"])
    settings = settings.with_file_key(env_file)
    tune_garbage_collector()
    store = await _open_store(settings)
    try:
        bot = _make_bot(GameService(store, shards=shards, file_key=settings.file_key), settings, shards)
        async with bot:
            try:
                await bot.start(settings.discord_token.get_secret_value())
            except discord.LoginFailure:
                raise ConfigError(["DISCORD_TOKEN: Discord refused the token (is it the bot's token?)"]) from None
    finally:
        await store.close()


async def _sync(settings: Settings) -> None:
    """Log in (no gateway connection: the login's setup loads the commands and, forced, syncs them globally and
    records their hash), say what was done, and close."""
    import discord

    from bot.app.service import GameService
    from bot.discord.client import MentatBot

    if not settings.has_token:
        raise ConfigError(["DISCORD_TOKEN: not set; the sync logs in to Discord with it"])
    store = await _open_store(settings)
    try:
        bot = MentatBot(GameService(store), force_sync=True)
        async with bot:
            try:
                await bot.login(settings.discord_token.get_secret_value())
            except discord.LoginFailure:
                raise ConfigError(["DISCORD_TOKEN: Discord refused the token (is it the bot's token?)"]) from None
    finally:
        await store.close()
    if bot.sync_outcome is None:
        print("Discord refused the sync; the log above says why.", file=sys.stderr)
        raise SystemExit(1)
    print(bot.sync_outcome[0].upper() + bot.sync_outcome[1:] + ".")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Mentat, a Discord moderator for Dune.")
    parser.add_argument("command", nargs="?", choices=("run", "check", "sync"), default="run",
                        help="run the bot (default), check the configuration and print the commands, or sync the "
                             "commands with Discord now")
    parser.add_argument("--env-file", default=".env", help="the .env file to read if it exists (default .env)")
    parser.add_argument("--shards", help="the shards this process runs, as 0-3 or 0,2,5 (needs --shard-count "
                                         "and DATABASE_URL)")
    parser.add_argument("--shard-count", type=int, help="how many shards the bot has in all, across processes")
    args = parser.parse_args(argv)
    try:
        settings = Settings.load(env_file=args.env_file)
        shards = shards_of(args, settings)
        configure_logging(settings)
        commands = {"check": lambda: _check(settings, shards), "sync": lambda: _sync(settings),
                    "run": lambda: _run(settings, shards, args.env_file)}
        asyncio.run(commands[args.command]())
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
