"""Command line: `python -m engine replay GAME.json`, `python -m engine demo`, `python -m engine autoplay`,
`python -m engine position GAME.json` (docs/positions.md)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from engine.checks.autoplay import BT_COUNTS, play_game, play_until_stuck
from engine.checks.invariants import violations
from engine.checks.prompts import prompt_problems
from engine.errors import ReplayMismatch
from engine.game import new_game
from engine.ids import BASE_FACTIONS, Faction
from engine.model import GameState, Phase
from engine.names import faction_name
from engine.options import GameOptions, GameSetup
from engine.positions.documents import InvalidPosition, load, write
from engine.record import load_record, record_game, save_record, verify
from engine.rng import Rng
from engine.secrecy.report import table_report
from engine.secrecy.views import view


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


def _position(args: argparse.Namespace) -> int:
    """Write the position a saved game has reached; with --check, load a position and say what it is."""
    if args.check:
        try:
            state = load(json.loads(Path(args.file).read_text(encoding="utf-8")))
        except (OSError, ValueError) as problem:  # InvalidPosition and bad JSON are ValueErrors
            problems = problem.problems if isinstance(problem, InvalidPosition) else [str(problem)]
            print("position REFUSED:\n" + "\n".join(f"- {p}" for p in problems), file=sys.stderr)
            return 1
        print(f"position OK: turn {state.turn}, phase {state.phase.value}, step {state.step or '(start)'}, "
              f"{len(state.prompts)} open decisions")
        return 0
    try:
        state = verify(load_record(Path(args.file)))
    except ReplayMismatch as problem:
        print(f"replay FAILED: {problem}", file=sys.stderr)
        return 1
    print(json.dumps(write(state), indent=1))
    return 0


def _demo(args: argparse.Namespace) -> int:
    setup = GameSetup(factions=tuple(Faction), options=GameOptions(), seed=args.seed)
    state, events = new_game(setup)
    state, actions, more_events = play_until_stuck(
        state, Rng.from_seed(args.seed), while_=lambda s: s.phase == Phase.SETUP
    )
    print("Mentat demo: a 7-faction game of Dune with the Bene Tleilaxu, set up by automatic players")
    print(f"seed {args.seed}; {len(actions)} setup decisions taken\n")
    print(table_report(view(state, None), events + more_events))
    if args.export:
        save_record(record_game(setup, actions, state), Path(args.export))
        print(f"\nGame exported to {args.export}")
    return 0


def _parse_options(text: str | None) -> GameOptions:
    if not text:
        return GameOptions()
    if text == "all":
        return GameOptions.all_on()
    return GameOptions(**{name.strip(): True for name in text.split(",") if name.strip()})


def _checks(check_defaults: bool) -> Callable[[GameState], list[str]]:
    """The invariants; with `--check-defaults` also every open prompt's default accepted and every default maker
    and sampler leaving the state as it is (engine/checks/prompts.py)."""
    if not check_defaults:
        return violations
    return lambda state: violations(state) + prompt_problems(state)


def _autoplay(args: argparse.Namespace) -> int:
    factions = [Faction(f.strip()) for f in args.factions.split(",")] if args.factions else list(BASE_FACTIONS)
    if args.bt:
        factions.append(Faction.BENE_TLEILAXU)
    options = _parse_options(args.options)
    started = time.perf_counter()  # the command line may read the clock; the engine never does
    results = []
    for number in range(args.games):
        seed = args.seed * 100_003 + number
        result = play_game(GameSetup(factions=tuple(factions), options=options, seed=seed), seed,
                           check=_checks(args.check_defaults), leaks=args.leaks, defaults_only=args.defaults_only)
        results.append(result)
        if result.violations or result.stalled:
            problem = result.violations[0] if result.violations else "stalled"
            print(f"game {number} (seed {seed}): {problem}")
    events: Counter[str] = Counter()
    played: Counter[str] = Counter()
    bt: Counter[str] = Counter({name: 0 for name in BT_COUNTS})
    for result in results:
        events.update(result.event_counts)
        played.update(result.cards_played)
        bt.update(result.bt)
    summary = {
        "games": len(results),
        "finished": sum(r.finished for r in results),
        "stalled": sum(r.stalled for r in results),
        "violations": sum(bool(r.violations) for r in results),
        "winners": dict(Counter("+".join(r.winners) or "none" for r in results if r.finished)),
        "turns_mean": round(sum(r.turns for r in results) / max(len(results), 1), 2),
        "actions": sum(r.actions for r in results),
        "seconds": round(time.perf_counter() - started, 2),
        "cards_played": dict(sorted(played.items())),
        **({"bt": {name: bt[name] for name in BT_COUNTS}} if Faction.BENE_TLEILAXU in factions else {}),
        "events": dict(sorted(events.items())),
    }
    print(json.dumps(summary))
    return 0 if summary["finished"] == summary["games"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replay = commands.add_parser("replay", help="replay a saved game and check it reaches its recorded state")
    replay.add_argument("game", help="a game file exported by the engine or the bot")
    replay.set_defaults(run=_replay)
    position = commands.add_parser("position", help="print the position a saved game has reached (JSON)")
    position.add_argument("file", help="a game file exported by the engine or the bot; with --check, a position")
    position.add_argument("--check", action="store_true", help="load the position in FILE and report on it")
    position.set_defaults(run=_position)
    demo = commands.add_parser("demo", help="set up a 7-faction game with automatic players")
    demo.add_argument("--seed", type=int, default=1979)
    demo.add_argument("--export", help="also write the game file here")
    demo.set_defaults(run=_demo)
    auto = commands.add_parser("autoplay", help="play whole games with random legal choices, checking invariants")
    auto.add_argument("--games", type=int, default=10)
    auto.add_argument("--seed", type=int, default=1)
    auto.add_argument("--factions", help="comma-separated faction ids (default: the six base factions)")
    auto.add_argument("--bt", action="store_true", help="add the Bene Tleilaxu")
    auto.add_argument("--options", help="'all', or comma-separated option names to switch on")
    auto.add_argument("--leaks", action="store_true",
                      help="also check every view and public event for secrets, and whom each private event reaches")
    auto.add_argument("--defaults-only", action="store_true",
                      help="players answer every decision with its default and do nothing else")
    auto.add_argument("--check-defaults", action="store_true",
                      help="also check, after every action, that each open decision's default is accepted and "
                           "that no default or sampler changes the state it reads")
    auto.set_defaults(run=_autoplay)
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
