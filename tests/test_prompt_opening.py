"""A decision's deadline counts from the version that opened it (issue 24): every prompt an action opens, in its
handler (a Bene Gesserit advisor after a shipment, Truthtrance, the BT-51 Karama window...) or after it, records
that action's version; a prompt left open keeps its opening, and a decision asked again (engine/flow.py ask_again:
same faction and kind, a new id) keeps the opening of the one it continues."""

from __future__ import annotations

import pytest

from engine.autoplay import play_one
from engine.game import new_game
from engine.ids import BASE_FACTIONS, Faction
from engine.model import GameState
from engine.options import GameOptions, GameSetup
from engine.rng import Rng

FACTIONS = (*BASE_FACTIONS, Faction.BENE_TLEILAXU)
EVERYTHING = GameOptions.all_on().model_copy(update={"turns": 4})
ACTIONS = 1500  # per game: several turns, with shipments, battles and any-time cards


def misdated(before: GameState, after: GameState) -> list[str]:
    """The prompts open after an action whose opening is not the version the rules give them."""
    was_open = {p.id: p for p in before.prompts}
    continued = {(p.faction, p.kind): p.opened_at for p in before.prompts if after.prompt(p.id) is None}
    wrong = []
    for prompt in after.prompts:
        if prompt.id in was_open:
            allowed = {was_open[prompt.id].opened_at}
        else:  # new now, or asked again in place of a decision this action closed
            allowed = {after.seq, continued.get((prompt.faction, prompt.kind), after.seq)}
        if prompt.opened_at not in allowed:
            wrong.append(f"{prompt.id} {prompt.kind.value} of {prompt.faction.value} opened at {prompt.opened_at}, "
                         f"expected one of {sorted(allowed)} (version {after.seq})")
    return wrong


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_open_decision_opened_at_the_version_of_the_action_that_opened_it(seed):
    state, _ = new_game(GameSetup(factions=FACTIONS, options=EVERYTHING, seed=seed))
    assert {p.opened_at for p in state.prompts} == {0}
    rng = Rng.from_seed(seed)
    for _ in range(ACTIONS):
        if not state.prompts:
            break
        for _action, (after, _events) in play_one(state, rng):
            assert misdated(state, after) == []
            state = after
