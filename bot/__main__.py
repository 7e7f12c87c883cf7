"""`mentat` (or `python -m bot`): the bot's command line.

    mentat run            run the Discord bot (the default); SIGTERM or Ctrl-C stops it cleanly
    mentat check          validate the configuration, open (and migrate) the database, print the invite URL and the
                          slash-command tree, without connecting to Discord
    mentat sync           register the commands with Discord globally now, changed or not (the bot itself syncs at
                          start only when they changed)
    mentat backup FILE    copy the SQLite database to FILE, consistently, while the bot runs (bot/store/backup.py)

`--shards 0-3 --shard-count 8`: run shards 0 to 3 of 8 in this process (discord.py's AutoShardedBot); other
processes run the others, all sharing one PostgreSQL database (DATABASE_URL). Each game belongs to the shard
of its guild, and only the process running that shard delivers its messages and runs its deadlines.

Exit status: 0 on success (a run stopped by SIGTERM included), 1 when Discord cannot be reached at the start (a
supervisor restarts the bot later), refused the sync, or a backup was not made, 2 when the configuration (the
database, the shards) is wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import shlex
import sqlite3
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import aiohttp
import asyncpg

from bot.app.ports import ALL_SHARDS, Shards
from bot.config import ConfigError, Settings, shown_url
from bot.store.backup import BackupError, backup_sqlite

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
            handler.addFilter(RedactSecret(settings.token))


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


def invite_lines(settings: Settings) -> list[str]:
    """The URL that adds the bot to a server, from DISCORD_APPLICATION_ID or else the token; with neither, the URL
    with a placeholder and the setting that fills it."""
    from bot.discord.permissions import application_id_from_token, invite_url

    application_id = settings.discord_application_id
    if application_id is None and settings.has_token:
        application_id = application_id_from_token(settings.token)
    lines = [f"Invite URL (a server admin opens it to add the bot with the permissions it needs): "
             f"{invite_url(application_id or 'APPLICATION_ID')}"]
    if application_id is None:
        lines.append("  The URL needs the bot's application id in place of APPLICATION_ID: set DISCORD_APPLICATION_ID "
                     "(Developer Portal > your application > General Information) or DISCORD_TOKEN, then check again.")
    lines.append("Privileged intents: none needed (Message Content, Server Members and Presence may stay off).")
    return lines


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
        for line in invite_lines(settings):
            print(line)
        bot = _make_bot(GameService(store, shards=shards), settings, shards)
        await bot.add_cogs()
        print(f"Command tree (manifest {manifest_hash(bot.tree)}):")
        for line in describe_tree(bot.tree):
            print(f"  {line}")
    finally:
        await store.close()


class DiscordUnreachable(Exception):
    """Discord could not be reached at the start: the network is down, or Discord is."""


def unreachable_reason(error: BaseException) -> str | None:
    """Why Discord could not be reached, when `error` says that it could not (None for any other error)."""
    import discord

    if isinstance(error, discord.HTTPException):
        return f"Discord answered {error.status} {error.response.reason}" if error.status >= 500 else None
    if isinstance(error, discord.GatewayNotFound):
        return "Discord's gateway was not found (a Discord outage?)"
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, aiohttp.ClientError | OSError):
        return str(error) or type(error).__name__
    return None


async def _serve(bot, token: str) -> None:
    """Run the bot until SIGTERM or SIGINT; then it closes (MentatBot.close: interactions refused, a drain in
    progress finished) and this returns."""

    from bot.process import stop_on_signals

    stop = asyncio.Event()
    with stop_on_signals(stop.set):
        running = asyncio.create_task(bot.start(token))
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if stop.is_set():
            await bot.close()
            with contextlib.suppress(Exception):  # a start cut short by the close (the login's request) is over
                await running
            return
    try:
        running.result()
    except Exception as error:
        raise _startup_failure(error) from None


def _startup_failure(error: Exception) -> Exception:
    """What a failed login or start means to whoever runs the bot: a refused token (ConfigError), Discord out of
    reach (DiscordUnreachable), or else the error itself (a bug, with its traceback)."""
    import discord

    if isinstance(error, discord.LoginFailure):
        return ConfigError(["DISCORD_TOKEN: Discord refused the token (is it the bot's token?)"])
    reason = unreachable_reason(error)
    return DiscordUnreachable(reason) if reason is not None else error


async def _run(settings: Settings, shards: Shards, env_file: str | None) -> None:
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
            await _serve(bot, settings.token)
    finally:
        await store.close()
    log.info("stopped")


def _backup(settings: Settings, target: str | None, force: bool) -> int:
    if target is None:
        print("backup: name the file to write the copy to: mentat backup FILE", file=sys.stderr)
        return 2
    if settings.uses_postgres:
        url = settings.store_location
        command = f"pg_dump --format=custom --file={shlex.quote(target)} {shlex.quote(shown_url(url))}"
        password = " (with the password in place of ***)" if urlsplit(url).password is not None else ""
        print("backup: the games are in PostgreSQL (DATABASE_URL); back them up with pg_dump, which takes a "
              f"consistent copy while the bot runs{password}:\n  {command}", file=sys.stderr)
        return 1
    try:
        done = backup_sqlite(settings.database_path, Path(target), force=force)
    except BackupError as error:
        print(f"backup: not made: {error}", file=sys.stderr)
        return 1
    print(f"Backed up {done.games} game{'s' if done.games != 1 else ''} from {settings.database_path} to {done.path} "
          f"({done.size:,} bytes; SQLite's integrity check: ok).")
    return 0


async def _sync(settings: Settings) -> None:
    """Log in (no gateway connection: the login's setup loads the commands and, forced, syncs them globally and
    records their hash), say what was done, and close."""

    from bot.app.service import GameService
    from bot.discord.client import MentatBot

    if not settings.has_token:
        raise ConfigError(["DISCORD_TOKEN: not set; the sync logs in to Discord with it"])
    store = await _open_store(settings)
    try:
        bot = MentatBot(GameService(store), force_sync=True)
        async with bot:
            try:
                await bot.login(settings.token)
            except Exception as error:
                raise _startup_failure(error) from None
    finally:
        await store.close()
    if bot.sync_outcome is None:
        print("Discord refused the sync; the log above says why.", file=sys.stderr)
        raise SystemExit(1)
    print(bot.sync_outcome[0].upper() + bot.sync_outcome[1:] + ".")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mentat", description="Mentat, a Discord moderator for Dune.")
    parser.add_argument("command", nargs="?", choices=("run", "check", "sync", "backup"), default="run",
                        help="run the bot (default); check the configuration and print the invite URL and the "
                             "commands; sync the commands with Discord now; or back up the SQLite database to FILE "
                             "while the bot runs")
    parser.add_argument("file", nargs="?", help="backup: the file to write the copy to")
    parser.add_argument("--force", action="store_true", help="backup: overwrite FILE if it exists")
    parser.add_argument("--env-file", default=".env", help="the .env file to read if it exists (default .env)")
    parser.add_argument("--shards", help="the shards this process runs, as 0-3 or 0,2,5 (needs --shard-count "
                                         "and DATABASE_URL)")
    parser.add_argument("--shard-count", type=int, help="how many shards the bot has in all, across processes")
    args = parser.parse_args(argv)
    try:
        if args.file is not None and args.command != "backup":
            parser.error(f"{args.command} takes no file (only backup does)")
        settings = Settings.load(env_file=args.env_file)
        if args.command == "backup":
            return _backup(settings, args.file, args.force)
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
    except DiscordUnreachable as error:
        print(f"cannot reach Discord: {error}; will exit so the supervisor restarts it", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C before the bot runs (a running bot stops on it by itself)
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
