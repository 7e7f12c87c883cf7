"""Secrets over whole random games: after every action, no faction's view and nothing shown to the table
holds another faction's hand, traitors, prediction, spice, BT marks, trap cards or unrevealed plans (the
secrets table of bene-tleilaxu.md and the 1979 shields). `python -m engine autoplay --leaks` runs the same
checks over many more games."""

from __future__ import annotations

import pytest

from engine.checks.autoplay import play_game
from engine.events import Event, EventType
from engine.ids import Faction
from engine.model import Battle, BattlePlan, BattleState
from engine.names import faction_name
from engine.secrecy import leaks
from engine.secrecy.leaks import LeakChecker
from tests.conftest import make_setup, ready_game


@pytest.mark.parametrize("seed", [2, 5, 8])
def test_no_secret_leaks_in_a_whole_random_seven_faction_game(seed):
    result = play_game(make_setup(seed=seed), seed, leaks=True)
    assert result.violations == [] and result.finished
    assert result.event_counts["plans_revealed"] > 0


def test_the_checker_catches_a_leaked_card_and_an_unrevealed_plan():
    """The checks can fail: a hand card named in a public event, a plan seen before the reveal."""
    state = ready_game()
    card = state.faction(Faction.HARKONNEN).hand[0]
    leak = Event(type=EventType.MOVED, message="-", data={"card": card})
    assert LeakChecker().check(state, [leak], views=False)
    plan = BattlePlan(leader="feyd_rautha")
    state.battle = BattleState(current=Battle(territory="Carthag", locations=["Carthag#10"],
                                              aggressor=Faction.HARKONNEN, defender=Faction.ATREIDES, step="plans",
                                              plans={Faction.HARKONNEN: plan}))
    state.faction(Faction.HARKONNEN).leaders_in_tanks = ["feyd_rautha"]  # a public field that names him
    assert any("unrevealed plan" in v for v in LeakChecker().check(state, []))


def _event(type_: str, message: str = "-", audience=None, **data) -> Event:
    return Event(type=type_, message=message, audience=audience, data=data)


def test_a_secret_sent_to_the_wrong_faction_is_caught():
    """engine/secrecy/audiences.py: a private event reaches only those entitled to what it says."""
    state = ready_game()
    card = state.faction(Faction.HARKONNEN).hand[0]
    bought = {"card": card, "card_number": 1}
    checker = LeakChecker()
    assert checker.check(state, [_event("card_bought", audience=(Faction.HARKONNEN,), **bought)], views=False) == []
    [wrong] = checker.check(state, [_event("card_bought", audience=(Faction.EMPEROR,), **bought)], views=False)
    assert "card_bought" in wrong and "only harkonnen may read it" in wrong
    assert checker.check(state, [_event("card_bought", audience=(Faction.HARKONNEN, Faction.EMPEROR), **bought)],
                         views=False)
    # BT-40: a gift's card is shared by the BT and the receiver, and by nobody else.
    bt = Faction.BENE_TLEILAXU

    def gift(*audience):
        return checker.check(state, [_event("card_given_card", audience=audience, to="harkonnen", card=card)],
                             views=False)

    assert gift(bt, Faction.HARKONNEN) == [] and gift(bt, Faction.ATREIDES)
    # A private event must say who may read it: a type the table is told, sent to one faction, has no such rule.
    assert "no audience rule" in checker.check(state, [_event("storm_moved", audience=(bt,))], views=False)[0]


def test_a_name_printed_on_several_cards_is_caught_unless_one_is_in_the_open():
    """Four cards are called Shield: a public message naming a Shield tells of a hidden one, unless a Shield is
    known to the table (in the discard, or shown in the same action); "Shield Wall" is a place."""
    state = ready_game()
    state.faction(Faction.ATREIDES).hand.append("shield_1")
    state.treachery_deck.remove("shield_1")
    told = _event("moved", "The Atreides hold a Shield.")
    assert LeakChecker().check(state, [told], views=False)
    assert not LeakChecker().check(state, [_event("moved", "Fremen move 2 tokens to the Shield Wall.")], views=False)
    shown = _event("karama_played", "Emperor play a Shield.", card="shield_2")
    assert not LeakChecker().check(state, [shown, told], views=False)
    state.treachery_deck.remove("shield_3")
    state.treachery_discard.append("shield_3")
    assert not LeakChecker().check(state, [told], views=False)


def test_a_public_message_telling_spice_behind_a_shield_or_an_awaited_storm_dial_is_caught():
    state = ready_game()  # the storm is being dialed: two dials awaited
    harkonnen = state.faction(Faction.HARKONNEN).spice
    short = _event("card_sold", f"Harkonnen buy card 1 (bid 12; the bidder could pay only {harkonnen}).",
                   faction="harkonnen")
    assert "harkonnen spice" in LeakChecker().check(state, [short], views=False)[0]
    bound = _event("spice_win_declared", f"They win if they hold at least {harkonnen}.", faction="harkonnen")
    assert not LeakChecker().check(state, [bound], views=False)
    rule = _event("spice_win_declared", f"If nobody else has won, they win (BT-{harkonnen}).", faction="harkonnen")
    assert not LeakChecker().check(state, [rule], views=False)  # a rule's number, not their spice
    dialer = state.prompts[0].faction
    state.storm_dials = {dialer: 2}
    dial = _event("moved", f"Storm dials: {faction_name(dialer)} 2.")
    assert "storm dial" in LeakChecker().check(state, [dial], views=False)[0]
    state.prompts = []  # both dials in: they are shown together
    assert not LeakChecker().check(state, [dial], views=False)


def test_a_view_showing_a_plan_before_the_reveal_is_caught(monkeypatch):
    """A-13: the plans (their dials too) are shown together once both are in, not before."""
    def early_view(state, viewer):
        seen = real_view(state, viewer)
        seen.battle.revealed_plans = dict(state.battle.current.plans)
        return seen

    real_view = leaks.view
    state = ready_game()
    state.battle = BattleState(current=Battle(territory="Carthag", locations=["Carthag#10"],
                                              aggressor=Faction.HARKONNEN, defender=Faction.ATREIDES, step="plans",
                                              plans={Faction.HARKONNEN: BattlePlan(dial=3)}))
    assert not LeakChecker().check(state, [])
    monkeypatch.setattr(leaks, "view", early_view)
    assert "the table sees the plans before the reveal" in LeakChecker().check(state, [])
