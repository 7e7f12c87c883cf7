"""Issue 27 item 3: every type of event the engine emits is a member of one enum (engine/events.py `EventType`),
named where it is emitted, never spelled as a string there nor built from pieces; the enum lists nothing the engine
no longer emits; and the events kept as JSON (bot/app/history.py) read the same words as before the enum.
"""

from __future__ import annotations

import ast
import json
from functools import cache
from pathlib import Path

from bot.app.history import events_json, kept_events
from engine.checks.autoplay import play_one
from engine.events import OWN_CHOICE_ECHOES, Event, EventType
from engine.game import new_game
from engine.ids import Faction
from engine.model import Phase
from engine.options import GameOptions, GameSetup
from engine.rng import Rng

ENGINE = Path(__file__).resolve().parent.parent / "engine"
SEEDS = (1, 2)


def emitting_calls() -> list[tuple[str, ast.expr]]:
    """The first argument of every `log.public(...)` and `log.private(...)` in the engine, with where it is."""
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("public", "private") and node.args):
                found.append((f"{path.relative_to(ENGINE.parent)}:{node.lineno}", node.args[0]))
    return found


def members_named_in_engine() -> set[str]:
    named = set()
    for path in ENGINE.rglob("*.py"):
        if path.name == "events.py" and path.parent == ENGINE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "EventType":
                named.add(node.attr)
    return named


@cache
def played_events() -> dict[int, list[Event]]:
    """The events of whole random games of every faction with every option, by seed."""
    games = {}
    for seed in SEEDS:
        setup = GameSetup(factions=tuple(Faction), seed=seed, options=GameOptions.all_on())
        state, events = new_game(setup)
        rng = Rng.from_seed(seed)
        while state.phase != Phase.ENDED and state.prompts and state.turn <= setup.options.turns:
            steps = play_one(state, rng)
            events += [event for _, (_, told) in steps for event in told]
            state = steps[-1][1][0]
        games[seed] = events
    return games


def test_the_engine_names_each_type_it_emits_from_the_enum():
    spelled = [f"{where}: {ast.unparse(arg)}" for where, arg in emitting_calls()
               if isinstance(arg, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call))]
    assert spelled == []


def test_the_enum_lists_only_types_the_engine_emits():
    named = members_named_in_engine()
    assert sorted(m.name for m in EventType if m.name not in named) == []


def test_every_event_of_random_games_has_a_type_of_the_enum():
    for seed, events in played_events().items():
        assert events, seed
        assert [e.type for e in events if type(e.type) is not EventType] == []


def test_kept_events_store_the_bare_word_and_read_back_the_same():
    events = played_events()[SEEDS[0]]
    text = events_json(events)
    assert [entry["type"] for entry in json.loads(text)] == [str(e.type.value) for e in events]
    again = kept_events(text)
    assert [e.type for e in again] == [e.type for e in events]
    assert events_json(again) == text


def test_a_kept_event_of_an_older_game_reads_as_its_type():
    (event,) = kept_events('[{"type":"storm_moved","message":"The storm moves 3 sectors.","audience":null}]')
    assert event.type is EventType.STORM_MOVED


def test_own_choice_echoes_are_told_to_one_faction_only():
    for events in played_events().values():
        told_to_many = [e.type for e in events if e.type in OWN_CHOICE_ECHOES and (e.public or len(e.audience) != 1)]
        assert told_to_many == []
