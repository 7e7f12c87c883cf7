"""Issue 27 item 3: each kind of decision has one typed model of its details (engine/flow.py `Details`, declared
beside the kind's handler), the contract the bot reads through `details_of`. Every decision open in seeded games
of every faction and every option is parsed by its kind's model, whose unknown keys are refused: a key the engine
writes that its model lacks fails here, and so does a field of a model that no game writes.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import defaultdict
from functools import cache
from types import SimpleNamespace
from typing import NamedTuple

import pytest
from pydantic import ValidationError

import engine.game  # noqa: F401  (every handler's module, and so every kind's model, registered)
from bot.discord import autocomplete
from bot.discord.cogs import nexus as nexus_cog
from bot.discord.cogs import play as play_cog
from bot.discord.prompt_forms import form_for
from engine.checks.autoplay import play_one
from engine.flow import DETAILS, details_of
from engine.ids import Faction
from engine.model import Phase, Prompt, PromptKind
from engine.options import GameOptions, GameSetup
from engine.phases.bidding import BidDetails
from engine.phases.setup import BgPredictionDetails
from engine.rng import Rng

SEEDS = range(1, 31)  # played until every kind is met, and at least the first few
AT_LEAST = 8


class Written(NamedTuple):
    """What the seeded games' decisions held: per kind, every key written in any decision and the keys written in
    all of them; each decision whose details its model refused."""

    anywhere: dict[PromptKind, set[str]]
    always: dict[PromptKind, set[str]]
    refused: list[str]


@cache
def keys_written() -> Written:
    written: dict[PromptKind, set[str]] = defaultdict(set)
    always: dict[PromptKind, set[str]] = {}
    refused: list[str] = []
    for seed in SEEDS:
        state, _ = new_state(seed)
        rng = Rng.from_seed(seed)
        while state.phase != Phase.ENDED and state.prompts:
            for prompt in state.prompts:
                written[prompt.kind] |= set(prompt.detail)
                always[prompt.kind] = always.get(prompt.kind, set(prompt.detail)) & set(prompt.detail)
                try:
                    details_of(prompt, DETAILS[prompt.kind])
                except ValidationError as error:
                    refused.append(f"seed {seed}, {prompt.kind.value}: {error}")
            state = play_one(state, rng)[-1][1][0]
        if seed >= AT_LEAST and set(written) == set(PromptKind):
            break
    return Written(dict(written), always, refused)


def new_state(seed: int):
    return engine.game.new_game(GameSetup(factions=tuple(Faction), seed=seed, options=GameOptions.all_on()))


def test_every_kind_has_a_model_of_its_details():
    assert sorted(k.value for k in PromptKind if k not in DETAILS) == []
    assert all(model.kind == kind for kind, model in DETAILS.items())


def test_every_decision_of_the_games_is_parsed_by_its_kind_model():
    assert keys_written().refused == []


def test_every_field_of_a_model_is_written_by_the_engine():
    written = keys_written().anywhere
    unwritten = [f"{kind.value}.{name}" for kind, model in DETAILS.items() for name in model.model_fields
                 if name not in written.get(kind, ())]
    assert unwritten == []


def test_every_kind_is_met_in_the_games():
    assert sorted(k.value for k in PromptKind if k not in keys_written().anywhere) == []


def test_a_field_has_a_default_only_if_the_engine_leaves_it_out_of_some_decision():
    """A field the engine always writes is required: a reader may count on it, and a test's hand-made decision
    must say it."""
    always = keys_written().always
    defaulted = [f"{kind.value}.{name}" for kind, model in DETAILS.items() for name, field in model.model_fields.items()
                 if not field.is_required() and name in always.get(kind, ())]
    assert defaulted == []


def _prompt(kind: PromptKind, **detail) -> Prompt:
    return Prompt(id="p1", kind=kind, faction=Faction.ATREIDES, secret=False, detail=detail, opened_at=0)


def test_a_key_the_model_lacks_is_refused():
    with pytest.raises(ValidationError):
        details_of(_prompt(PromptKind.BG_PREDICTION, turns=10, winner="atreides"), BgPredictionDetails)


def test_the_details_are_read_as_their_kind_model_only():
    with pytest.raises(TypeError):
        details_of(_prompt(PromptKind.BG_PREDICTION, turns=10), BidDetails)
    assert details_of(_prompt(PromptKind.BG_PREDICTION, turns=10), BgPredictionDetails).turns == 10


def test_the_stored_details_stay_a_plain_dict():
    """The game's JSON (and so its hash) is the engine's dict as written; the models only read it."""
    prompt = _prompt(PromptKind.BID, min_bid=1, max_bid=3, high_bid=0, high_bidder=None, card_number=1, cards=4,
                     allies=["fremen"])
    details = details_of(prompt, BidDetails)
    assert details.allies == [Faction.FREMEN]
    assert prompt.model_dump()["detail"]["allies"] == ["fremen"]


# --- the bot's readers: every decision of the games read by its forms and its autocompletes -------------------

PER_KIND = 6  # the first few decisions of each kind


@cache
def samples() -> dict[PromptKind, list[Prompt]]:
    found: dict[PromptKind, list[Prompt]] = defaultdict(list)
    for seed in SEEDS[:AT_LEAST]:
        state, _ = new_state(seed)
        rng = Rng.from_seed(seed)
        while state.phase != Phase.ENDED and state.prompts:
            for prompt in state.prompts:
                if len(found[prompt.kind]) < PER_KIND and prompt not in found[prompt.kind]:
                    found[prompt.kind].append(prompt)
            state = play_one(state, rng)[-1][1][0]
    return dict(found)


def test_every_decision_of_the_games_has_its_form_built_from_its_details():
    for prompts in samples().values():
        for prompt in prompts:
            form_for(prompt)


AUTOCOMPLETING = (autocomplete, play_cog, nexus_cog)
READING_THE_DECISION = ("open_decision(", "_plan(", "_traps(", "_nexus(")  # the helpers that call open_decision


def _decision_readers() -> list:
    """The autocompletes that read the caller's open decision (and nothing else of the game)."""
    return [fn for module in AUTOCOMPLETING for name, fn in vars(module).items()
            if inspect.iscoroutinefunction(fn) and fn.__module__ == module.__name__
            and list(inspect.signature(fn).parameters) == ["interaction", "current"]
            and any(call in inspect.getsource(fn) for call in READING_THE_DECISION)]


@pytest.mark.parametrize("typed", [{}, {"weapon": "lasgun", "advisors": "yes"}, {"advisors": "no"}])
def test_every_decision_of_the_games_is_read_by_the_autocompletes(monkeypatch, typed):
    """Each autocomplete reads its kind's details through their model (a field it names wrongly fails here), for
    what the caller has typed in the other options or not."""
    readers = _decision_readers()
    assert len(readers) > 30
    for index in range(PER_KIND):
        open_now = {kind: prompts[index % len(prompts)] for kind, prompts in samples().items()}

        async def open_decision(interaction, kind, open_now=open_now):
            return open_now.get(kind)

        for module in AUTOCOMPLETING:
            monkeypatch.setattr(module, "open_decision", open_decision)
        interaction = SimpleNamespace(namespace=SimpleNamespace(**typed))
        for reader in readers:
            asyncio.run(reader(interaction, ""))
