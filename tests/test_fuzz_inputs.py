"""Malformed input gets a clear refusal and changes nothing (issue 15): game files into /game import, lines into
the console, actions into `parse_action`. Hypothesis makes the inputs: JSON of any shape (nesting thousands deep,
numbers of thousands of digits, wrong types where a word belongs) and plain garbage.

The number of examples is FUZZ_EXAMPLES (default 200 each, a few seconds; the acceptance run sets 10000)."""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.app.service import GameService, NotAllowed
from bot.console.gateway import ConsoleGateway
from bot.console.repl import Console
from bot.store.memory import MemoryGameStore
from engine.actions import parse_action

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
FIELDS = ["type", "faction", "amount", "tokens", "to_location", "leader", "format", "setup", "actions", "seats",
          "state_hash", "factions", "seed", "options"]
action_like = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6)


def nasty_text() -> st.SearchStrategy[str]:
    """Text that breaks naive parsers: deep nesting, huge numbers, truncated documents, or anything at all."""
    deep = st.integers(1_000, 50_000).map(lambda n: "[" * n + "]" * n)
    deep_objects = st.integers(1_000, 20_000).map(lambda n: '{"a":' * n + "1" + "}" * n)
    huge = st.integers(4_000, 20_000).map(lambda n: '{"type": "bid", "amount": ' + "9" * n + "}")
    shaped = st.one_of(json_values, action_like).map(json.dumps)
    cut = shaped.flatmap(lambda text: st.integers(0, len(text)).map(lambda i: text[:i]))
    return st.one_of(deep, deep_objects, huge, shaped, cut, st.text(max_size=200))


@given(nasty_text())
@FUZZ
def test_parse_action_refuses_with_a_validation_error_only(text):
    try:
        action = parse_action(text)
    except ValidationError:
        return
    assert parse_action(action.model_dump_json()) == action  # the rare valid action survives a round trip


@given(nasty_text())
@FUZZ
async def test_import_game_refuses_any_malformed_file_clearly_and_creates_nothing(text):
    service = GameService(MemoryGameStore())
    try:
        await service.import_game(1, 77, text)
    except NotAllowed as refusal:
        assert str(refusal)  # a sentence for the moderator, never a traceback
    assert await service.store.game_in_channel(77) is None


PRINTED: list[str] = []
CONSOLES: list[Console] = []  # one game for every example: a refused line leaves it as it was


async def _console() -> Console:
    if not CONSOLES:
        console = Console(GameService(MemoryGameStore()), ConsoleGateway(out=PRINTED.append), out=PRINTED.append)
        for line in ("new atreides,harkonnen,fremen --seed 3", "start", "as atreides"):
            assert await console.execute(line)
        CONSOLES.append(console)
    return CONSOLES[0]


@given(st.sampled_from(["do", "admin"]), nasty_text())
@FUZZ
async def test_the_console_refuses_any_malformed_action_line_and_changes_nothing(verb, text):
    console = await _console()
    version = (await console.service.store.load_game("g1")).seq
    del PRINTED[:]
    accepted = await console.execute(f"{verb} {text}")
    if not accepted:
        assert PRINTED and PRINTED[0].startswith(("error:", "refused:")), PRINTED
        assert (await console.service.store.load_game("g1")).seq == version
