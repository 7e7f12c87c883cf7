"""Secrets: what one faction chooses in secret changes nothing that another faction, or the table, can see.

The tests build two games that differ only in one faction's secret and compare every other view and every
event visible to anyone else. A leak of any kind (a field, a message, an event) makes the two differ.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import ChooseTraitor, LayTraps, PredictWinner
from engine.checks.autoplay import play_until_stuck
from engine.events import visible_events
from engine.game import new_game
from engine.ids import Faction
from engine.model import Phase, PromptKind
from engine.options import FixedSetup
from engine.rng import Rng
from engine.secrecy.report import table_report
from engine.secrecy.views import view
from tests.conftest import make_setup, prompt_of
from tests.helpers.twin_games import twin_games

A, BG, E, F, H, BT = (
    Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.EMPEROR, Faction.FREMEN, Faction.HARKONNEN,
    Faction.BENE_TLEILAXU,
)
VIEWERS = [None, *Faction]


def _seen_by(state, events, viewer):
    return view(state, viewer).model_dump(mode="json"), [e.model_dump(mode="json") for e in
                                                          visible_events(events, viewer)]


def _assert_only_owner_differs(games, owner):
    (s1, e1), (s2, e2) = games
    assert _seen_by(s1, e1, owner) != _seen_by(s2, e2, owner), "the secret made no difference at all"
    for viewer in VIEWERS:
        if viewer != owner:
            assert _seen_by(s1, e1, viewer) == _seen_by(s2, e2, viewer), f"{viewer} can tell the secret"
    assert table_report(view(s1, None), e1) == table_report(view(s2, None), e2)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), pick=st.sampled_from([(0, 1), (1, 3), (2, 0)]))
def test_nobody_else_can_tell_which_traitor_atreides_kept(seed, pick):
    def keep(index):
        return lambda s: ChooseTraitor(faction=A, leader=prompt_of(s, A, PromptKind.TRAITOR_PICK).options[index])

    _assert_only_owner_differs(twin_games(seed, keep(pick[0]), keep(pick[1])), A)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_nobody_else_can_tell_the_bg_prediction(seed):
    games = twin_games(
        seed,
        lambda s: PredictWinner(faction=BG, predicted=A, turn=3),
        lambda s: PredictWinner(faction=BG, predicted=BT, turn=11),
    )
    _assert_only_owner_differs(games, BG)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_nobody_else_can_tell_which_card_a_trap_is(seed):
    """BT-30 and the secrets table of bene-tleilaxu.md: a trap's card is known to the BT alone."""
    games = twin_games(
        seed,
        lambda s: LayTraps(faction=BT, traps={"Habbanya Sietch": s.faction(BT).hand[0]}),
        lambda s: LayTraps(faction=BT, traps={"Habbanya Sietch": s.faction(BT).hand[1]}),
        until=Phase.MOVEMENT,
        bt_give_cards=False,  # a gift from the rest of the BT hand would rightly differ for its receiver
    )
    _assert_only_owner_differs(games, BT)


def test_nobody_else_can_tell_which_traitors_were_dealt():
    """The four traitors dealt to Atreides (and the cards set aside) are secret."""
    fixed_others = {
        H: ("thufir_hawat", "lady_jessica", "gurney_halleck", "duncan_idaho"),
        F: ("dr_wellington_yueh", "captain_iakin_nefud", "shadout_mapes", "caid"),
        E: ("hasimir_fenring", "captain_aramsham", "burseg", "bashar"),
    }
    games = []
    for hand in (("feyd_rautha", "beast_rabban", "stilgar", "chani"),
                 ("piter_de_vries", "umman_kudu", "jamis", "otheym")):
        fixed = FixedSetup(traitor_hands={A: hand, **fixed_others})
        games.append(new_game(make_setup((A, H, F, E), fixed=fixed)))
    for viewer in (None, H, F, E):
        assert _seen_by(*games[0], viewer) == _seen_by(*games[1], viewer)
    assert _seen_by(*games[0], A) != _seen_by(*games[1], A)


@pytest.mark.parametrize("viewer", list(Faction))
def test_no_view_carries_another_factions_traitors_or_the_prediction(viewer):
    state, _ = new_game(make_setup(seed=11))
    state, _, _ = play_until_stuck(state, Rng.from_seed(11))
    seen = view(state, viewer)
    assert seen.own.traitors == state.faction(viewer).traitors
    assert (seen.own.prediction is not None) == (viewer == BG)
    assert (seen.own.trap_cards != {}) == (viewer == BT and bool(state.traps))
    assert all(p.faction == viewer for p in seen.own_prompts)
    table = view(state, None)
    assert table.own is None and table.own_prompts == []


def test_the_table_sees_who_is_awaited_but_not_their_choices(seven):
    table = view(seven, None)
    assert {(a.faction, a.kind) for a in table.awaiting} == {(p.faction, p.kind) for p in seven.prompts}
    dumped = table.model_dump_json()
    for prompt in seven.prompts:
        if prompt.kind == PromptKind.TRAITOR_PICK:
            assert all(f'"{leader}"' not in dumped for leader in prompt.options)
