"""A decision's deadline counts from the version that opened it (issue 24): every prompt an action opens, in its
handler (a Bene Gesserit advisor after a shipment, Truthtrance, the BT-51 Karama window...) or after it, records
that action's version; a prompt left open keeps its opening, and a decision asked again (engine/flow.py ask_again:
same faction and kind, a new id, `asks_again` in its detail) keeps the opening of the one it continues."""

from __future__ import annotations

import pytest

from engine.checks.autoplay import play_one
from engine.flow import ASKED_AGAIN_KINDS, ASKS_AGAIN
from engine.game import new_game
from engine.ids import BASE_FACTIONS, Faction
from engine.model import GameState
from engine.options import GameOptions, GameSetup
from engine.rng import Rng

FACTIONS = (*BASE_FACTIONS, Faction.BENE_TLEILAXU)
EVERYTHING = GameOptions.all_on().model_copy(update={"turns": 4})
ACTIONS = 1500  # per game: several turns, with shipments, battles and any-time cards


def misdated(before: GameState, after: GameState) -> list[str]:
    """The prompts open after an action whose opening is not the version the rules give them: one open before keeps
    its own; one newly open has the action's version (after.seq), unless it asks again a decision this action
    closed (a kind that is asked again, the same faction), whose opening it keeps: that of the decision open before
    the action that it continues, or this action's when this action opened that one too (a Nexus opened and asked
    again by standing orders within one action)."""
    was_open = {p.id: p for p in before.prompts}
    wrong = []
    for prompt in after.prompts:
        if prompt.id in was_open:
            expected = was_open[prompt.id].opened_at
        elif ASKS_AGAIN in prompt.detail:  # oldest first: one open before this action, or opened by it too
            continued = [was_open[asked] for asked in prompt.detail[ASKS_AGAIN] if asked in was_open]
            if (prompt.kind not in ASKED_AGAIN_KINDS or len(continued) > 1 or any(
                    after.prompt(old.id) is not None or (old.faction, old.kind) != (prompt.faction, prompt.kind)
                    for old in continued)):
                wrong.append(f"{prompt.id} {prompt.kind.value} of {prompt.faction.value} asks again "
                             f"{prompt.detail[ASKS_AGAIN]}, not a decision of its own this action closed")
                continue
            expected = continued[0].opened_at if continued else after.seq
        else:
            expected = after.seq
        if prompt.opened_at != expected:
            wrong.append(f"{prompt.id} {prompt.kind.value} of {prompt.faction.value} opened at {prompt.opened_at}, "
                         f"expected {expected} (version {after.seq})")
    return wrong


def random_setup(seed: int) -> GameSetup:
    """A random game: 2 to 7 factions (the Bene Tleilaxu among them or not), every option on or none."""
    rng = Rng.from_seed(10_000 + seed)
    factions = list(FACTIONS)
    chosen = [factions.pop(rng.below(len(factions))) for _ in range(2 + rng.below(len(FACTIONS) - 1))]
    options = EVERYTHING if rng.below(2) else GameOptions().model_copy(update={"turns": 4})
    return GameSetup(factions=tuple(chosen), options=options, seed=seed)


@pytest.mark.parametrize("setup", [GameSetup(factions=FACTIONS, options=EVERYTHING, seed=seed) for seed in (1, 2, 3)]
                         + [random_setup(seed) for seed in range(4, 10)],
                         ids=lambda setup: f"{len(setup.factions)}f-seed{setup.seed}")
def test_every_open_decision_opened_at_the_version_of_the_action_that_opened_it(setup):
    state, _ = new_game(setup)
    assert {p.opened_at for p in state.prompts} == {0}  # the start opens them: version 0
    rng = Rng.from_seed(setup.seed)
    asked_again = 0
    for _ in range(ACTIONS):
        if not state.prompts:
            break
        for _action, (after, _events) in play_one(state, rng):
            assert after.seq == state.seq + 1
            assert misdated(state, after) == []
            asked_again += sum(ASKS_AGAIN in p.detail and state.prompt(p.id) is None for p in after.prompts)
            state = after
    if setup.seed == 1:
        assert asked_again > 0  # the rule for a decision asked again was met, not only the plain one


def test_a_decision_asked_again_under_a_new_id_keeps_its_first_opening_and_any_other_gets_the_new_version():
    """The check itself: it refuses a new prompt dated earlier than the action, and a re-ask that is not one."""
    state, _ = new_game(GameSetup(factions=FACTIONS, options=EVERYTHING, seed=1))
    before = state.model_copy(deep=True, update={"seq": 5})
    old = before.prompts[0]
    after = before.model_copy(deep=True, update={"seq": 6})
    after.prompts = [p for p in after.prompts if p.id != old.id]
    assert misdated(before, after) == []
    after.prompts.append(old.model_copy(update={"id": "p999", "opened_at": old.opened_at}))
    assert misdated(before, after) == [f"p999 {old.kind.value} of {old.faction.value} opened at 0, expected 6 "
                                       "(version 6)"]
    after.prompts[-1] = old.model_copy(update={"id": "p999", "detail": {ASKS_AGAIN: [old.id]}})
    assert misdated(before, after)[0].endswith("not a decision of its own this action closed")  # a pick is not asked
