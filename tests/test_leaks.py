"""Secrets over whole random games: after every action, no faction's view and nothing shown to the table
holds another faction's hand, traitors, prediction or spice (the secrets table of bene-tleilaxu.md and
the 1979 shields)."""

from __future__ import annotations

import json

import pytest

from engine.autoplay import play_prompt
from engine.data import load_game_data
from engine.game import new_game
from engine.ids import Faction
from engine.model import GameState, Phase
from engine.rng import Rng
from engine.views import view
from tests.conftest import make_setup

DATA = load_game_data()
# Names printed on only one card: seeing one in a public message while it sits in a hand is a leak.
UNIQUE_NAMES = {c.name: c.id for c in DATA.treachery_cards if sum(d.name == c.name for d in DATA.treachery_cards) == 1}
MAX_ACTIONS = 3000


def _strings(value) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            found |= _strings(k) | _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            found |= _strings(v)
    return found


def _check_views(state: GameState) -> None:
    hands = {f: set(fs.hand) for f, fs in state.factions.items()}
    for viewer in state.factions:
        seen = view(state, viewer)
        dumped = seen.model_dump(mode="json")
        others_cards = set().union(*(h for f, h in hands.items() if f != viewer))
        assert not (_strings(dumped) & others_cards), f"{viewer} sees another faction's card"
        assert seen.own.traitors == state.faction(viewer).traitors
        assert seen.own.spice == state.faction(viewer).spice
        is_bg = viewer == Faction.BENE_GESSERIT
        assert (seen.own.prediction is not None) == (is_bg and state.bg_prediction is not None)
        assert "spice" not in json.dumps([f for f in dumped["factions"]])
    _check_unrevealed_plans(state)
    table = view(state, None).model_dump(mode="json")
    assert table["own"] is None and table["own_prompts"] == []
    assert not (_strings(table) & set().union(*hands.values()))


def _check_unrevealed_plans(state: GameState) -> None:
    """Until the reveal, a submitted plan is in no other view, save the element prescience told the Atreides."""
    battle = state.battle.current if state.battle else None
    if battle is None or battle.step != "plans":
        return
    for owner, plan in battle.plans.items():
        parts = {plan.leader, plan.cheap_hero, plan.weapon, plan.defense} - {None}
        for viewer in [None, *state.factions]:
            if viewer == owner:
                continue
            seen = view(state, viewer).model_dump(mode="json")
            if seen["own"]:
                seen["own"]["traitors"] = []  # one's own traitor cards name other factions' leaders
            seen = _strings(seen)
            if viewer == battle.prescience_asker and owner == battle.prescience_target:
                seen.discard(battle.prescience_answer)
            assert not (seen & parts), f"{viewer} sees {seen & parts} of {owner}'s unrevealed plan"


def _check_public_events(state: GameState, events, revealed: set[str]) -> None:
    """No public event names a card hidden in a hand or a trap. A card the table has seen (a battle plan's
    card the winner kept) is no secret until it goes back into the deck; `revealed` tracks those."""
    revealed -= set(state.treachery_deck)
    held = {c for fs in state.factions.values() for c in fs.hand} - revealed
    held |= {t.card for t in state.traps.values()}
    for event in events:
        if not event.public:
            continue
        if event.type == "plans_revealed":
            revealed |= _strings(event.data["plans"])
            continue
        data = {k: v for k, v in event.data.items() if k != "category"}  # "lasgun" is a card kind and a card id
        named = _strings(data) & held
        assert not named, f"public event names a hidden card: {event}"
        message = event.message
        for territory in DATA.board.territories:  # "Gara Kulon" is a place, not the Kulon card
            message = message.replace(territory, "")
        for name, card in UNIQUE_NAMES.items():
            if card in held and name in message:
                raise AssertionError(f"public message names {name}, which is hidden in a hand: {event.message}")


@pytest.mark.parametrize("seed", [2, 5])
def test_no_secret_leaks_in_a_whole_random_game(seed):
    rng = Rng.from_seed(seed)
    state, events = new_game(make_setup(seed=seed))
    revealed: set[str] = set()
    _check_public_events(state, events, revealed)
    actions = 0
    while state.phase != Phase.ENDED and state.prompts and actions < MAX_ACTIONS:
        _, (state, events) = play_prompt(state, rng.choice(state.prompts), rng)
        actions += 1
        _check_public_events(state, events, revealed)
        if actions % 5 == 0 or state.phase in (Phase.ENDED, Phase.BATTLE):
            _check_views(state)
    assert actions > 20
