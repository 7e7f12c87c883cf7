"""Command line: `python -m engine replay GAME.json`, `python -m engine demo`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.autoplay import play_until_stuck
from engine.errors import ReplayMismatch
from engine.game import new_game
from engine.ids import Faction
from engine.names import faction_name
from engine.options import GameOptions, GameSetup
from engine.record import load_record, record_game, save_record, verify
from engine.report import table_report
from engine.rng import Rng
from engine.views import view


def _replay(args: argparse.Namespace) -> int:
    try:
        record = load_record(Path(args.game))
        state = verify(record)
    except ReplayMismatch as problem:
        print(f"replay FAILED: {problem}", file=sys.stderr)
        return 1
    names = ", ".join(faction_name(f) for f in record.setup.factions)
    print(f"replay OK: {len(record.actions)} actions, seed {record.setup.seed}")
    print(f"factions: {names}")
    print(f"now: turn {state.turn}, phase {state.phase.value}, storm at sector {state.storm_sector}")
    if state.winners:
        print("winners: " + ", ".join(faction_name(f) for f in state.winners))
    print(f"state hash: {record.state_hash}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    setup = GameSetup(factions=tuple(Faction), options=GameOptions(), seed=args.seed)
    state, events = new_game(setup)
    state, actions, more_events = play_until_stuck(state, Rng.from_seed(args.seed))
    print("Mentat demo: a 7-faction game of Dune with the Bene Tleilaxu, set up by automatic players")
    print(f"seed {args.seed}; {len(actions)} setup decisions taken\n")
    print(table_report(view(state, None), events + more_events))
    if args.export:
        save_record(record_game(setup, actions, state), Path(args.export))
        print(f"\nGame exported to {args.export}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replay = commands.add_parser("replay", help="replay a saved game and check it reaches its recorded state")
    replay.add_argument("game", help="a game file exported by the engine or the bot")
    replay.set_defaults(run=_replay)
    demo = commands.add_parser("demo", help="set up a 7-faction game with automatic players")
    demo.add_argument("--seed", type=int, default=1979)
    demo.add_argument("--export", help="also write the game file here")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
