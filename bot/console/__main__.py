"""`python -m bot.console [--db PATH|URL] [--script FILE] [--seed N] [--options O] [--deliveries FILE]`: hot seat.

The same GameService and stores as the bot (memory by default; with --db, SQLite, or PostgreSQL given a
postgresql:// URL), with a ConsoleGateway in place of Discord. With --script the commands come from a file and
the exit status says whether every line did as expected (a line starting with `!` must be refused; SIGTERM stops
it after the command in progress, with status 0); without it, an interactive prompt.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.app.lobby import parse_options
from bot.app.service import GameService
from bot.app.words import NotUnderstood
from bot.console.gateway import ConsoleGateway
from bot.console.repl import Console
from bot.process import stop_on_signals
from bot.store.memory import MemoryGameStore
from bot.store.opening import open_store


def interactive(console: Console, runner: asyncio.Runner) -> None:
    """Read commands with input() while no event loop runs, so Ctrl-C and Ctrl-D end the session at once."""
    print("Mentat console. Type help for the commands.")
    while not console.finished:
        try:
            line = input(console.prompt_text())
        except (EOFError, KeyboardInterrupt):
            print()
            return
        if not line.strip() or line.strip().startswith("#"):
            continue
        try:
            runner.run(console.execute(line))
        except KeyboardInterrupt:
            print("interrupted")
            return
        except Exception as error:  # noqa: BLE001 - a bug in one command must not end the session
            print(f"internal error: {type(error).__name__}: {error}")


async def run_script(console: Console, path: Path) -> int:
    """The script's commands; SIGTERM or Ctrl-C stops it after the command in progress, which delivers its messages
    first (so a restart sends none of them again), and the session ends with status 0."""
    with stop_on_signals(console.stop):
        return await console.run_script(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.console", description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a SQLite database file (created if missing) or a postgresql:// URL; the game "
                                     "there is resumed")
    parser.add_argument("--script", help="run the commands of this file, then exit")
    parser.add_argument("--seed", type=int, help="the seed of `new` when it names none")
    parser.add_argument("--options", help="the options of `new` when it names none: 'all', or a,b or name=value")
    parser.add_argument("--deliveries", help="append every delivered message (with its outbox id) to this file, "
                                             "fsynced, and never deliver an outbox id twice (the crash test)")
    args = parser.parse_args(argv)
    try:
        options = parse_options(args.options) if args.options else None
    except NotUnderstood as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.script and not Path(args.script).is_file():
        print(f"error: no script file {args.script}", file=sys.stderr)
        return 2
    # One loop for the whole session: the database connections belong to it.
    with asyncio.Runner() as runner:
        store = runner.run(open_store(args.db)) if args.db else MemoryGameStore()
        try:
            gateway = ConsoleGateway(deliveries=Path(args.deliveries) if args.deliveries else None)
            console = Console(GameService(store), gateway, default_seed=args.seed, default_options=options)
            runner.run(console.resume())
            if args.script:
                return runner.run(run_script(console, Path(args.script)))
            interactive(console, runner)
            return 0
        finally:
            runner.run(store.close())


if __name__ == "__main__":
    sys.exit(main())
