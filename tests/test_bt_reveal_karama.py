"""BT-51, BT-26, R-31: a Karama cancels a BT traitor reveal, answered after the reveal is seen
(engine/factions/bt_reveal_karama.py). Positions from tests/test_bt_traitors.py: the Atreides, Emperor and
Harkonnen in storm order, then the BT; Duncan Idaho, marked, won Arrakeen for 7 Atreides tokens."""

from __future__ import annotations

import pytest

from bot.app.render import action_messages
from bot.app.rules import cited_rule
from engine.actions import (
    AnswerRevealKarama,
    ChooseBtAttack,
    DialStorm,
    ForceDefault,
    MarkBtTraitor,
    RevealBtTraitor,
    Ship,
    SkipShipment,
    UseKarama,
)
from engine.checks.autoplay import bt_counts, spontaneous_action
from engine.checks.invariants import violations
from engine.errors import ViolationCode
from engine.flow import DEFAULTS, SAMPLERS
from engine.game import apply
from engine.model import Phase, PromptKind
from engine.rng import Rng
from engine.rules.anytime import anytime_choices
from engine.rules.karama import Advantage
from engine.secrecy.leaks import LeakChecker
from engine.secrecy.views import view
from tests.conftest import BG, BT, A, E, F, H, apply_all, let_reveal_stand, prompt_of, refused, take_card
from tests.helpers.positions.bt_reveal_karama import revealed, with_options
from tests.helpers.positions.bt_traitors import (
    ARRAKEEN,
    DOTS,
    DUNCAN,
    FLAT,
    KARAMA,
    at,
    battle_won_by_duncan,
    drive,
    position,
    stronghold_won,
)

KIND = PromptKind.BT_REVEAL_KARAMA
KARAMA_2, WORTHLESS = "karama_2", "baliset"
STAND = [AnswerRevealKarama(faction=f) for f in (A, E, H)]


def public(events):
    return [e for e in events if e.public]


def betrayed(state):
    return DUNCAN in state.faction(A).leaders_in_tanks


# --- the window --------------------------------------------------------------------------------------------------


def test_bt_51_a_karama_answered_after_the_reveal_cancels_it():
    state, events = revealed(hands={E: [KARAMA]})
    # The reveal is public at once; its effect waits for the Karama window.
    assert [e.type for e in public(events)] == ["bt_traitor_revealed", "bt_karama_window"]
    assert not betrayed(state) and state.tokens_at(ARRAKEEN, A) == 7 and state.bt.controlled == []
    state, _ = apply(state, AnswerRevealKarama(faction=E, cancel=True))
    state, events = apply_all(state, AnswerRevealKarama(faction=A), AnswerRevealKarama(faction=H))
    [played] = [e for e in public(events) if e.type == "karama_played"]
    assert played.data["faction"] == E.value and played.data["card"] == KARAMA and "BT-51" in played.message
    # BT-51: the leader stays with his faction, the tokens stay; R-31: the mark is gone.
    assert not betrayed(state) and state.tokens_at(ARRAKEEN, A) == 7 and state.bt.controlled == []
    assert state.bt.marked == [] and KARAMA in state.treachery_discard and state.faction(E).hand == []
    assert not any(e.type == "bt_betrayal" for e in events)
    assert violations(state) == []


def test_bt_51_the_reveal_takes_effect_once_every_faction_lets_it_stand():
    state, _ = revealed(hands={E: [KARAMA]})
    state, _ = apply_all(state, AnswerRevealKarama(faction=A), AnswerRevealKarama(faction=E))
    assert not betrayed(state)  # the Harkonnen have not answered
    state, events = apply(state, AnswerRevealKarama(faction=H))
    [betrayal] = [e for e in public(events) if e.type == "bt_betrayal"]
    assert betrayal.data["tokens"] == 7 and betrayal.data["territories"] == ["Arrakeen"]
    assert betrayed(state) and state.tokens_at(ARRAKEEN, A) == 0 and state.bt.controlled == ["Arrakeen"]
    assert state.faction(E).hand == [KARAMA] and state.victories == [] and state.bt.karama_window is None
    assert bt_counts(events)["betrayals"] == 1
    assert violations(state) == []


def test_bt_51_every_faction_but_the_bt_is_asked_in_secret_whatever_it_holds():
    state, _ = revealed(hands={E: [KARAMA]})
    window = [p for p in state.prompts if p.kind == KIND]
    assert [p.faction for p in window] == [A, E, H] and all(p.secret and p.blocking for p in window)
    # The options are the decider's own (like the storm-card window): "cancel" only with a Karama in hand.
    assert prompt_of(state, E, KIND).options == ["let_it_stand", "cancel"]
    assert prompt_of(state, A, KIND).options == ["let_it_stand"] == prompt_of(state, H, KIND).options
    table = view(state, None)
    assert [(a.faction, a.kind, a.secret) for a in table.awaiting] == [(A, KIND, True), (E, KIND, True),
                                                                      (H, KIND, True)]
    assert [p.kind for p in view(state, A).own_prompts] == [KIND]
    assert view(state, A).own_prompts[0].options == ["let_it_stand"]
    assert LeakChecker().check(state, []) == []


def test_bt_51_answers_are_secret_and_an_answered_prompt_stays_open_until_the_window_closes():
    state, _ = revealed(hands={E: [KARAMA]})
    state, events = apply(state, AnswerRevealKarama(faction=E, cancel=True))
    assert public(events) == [] and all(e.audience == (E,) for e in events)
    assert [a.faction for a in view(state, None).awaiting] == [A, E, H]  # nobody can tell who answered
    state, _ = apply(state, AnswerRevealKarama(faction=E, cancel=False))  # changed: it stands after all
    state, events = apply_all(state, AnswerRevealKarama(faction=A), AnswerRevealKarama(faction=H))
    assert betrayed(state) and state.faction(E).hand == [KARAMA]


def test_bt_51_a_cancel_without_a_karama_is_refused_to_the_decider_alone():
    state, _ = revealed(hands={E: [KARAMA]})
    refusal = refused(state, AnswerRevealKarama(faction=H, cancel=True), "BT-51", ViolationCode.NOT_ALLOWED)
    assert "no Karama" in refusal.message and refusal.allowed == ["let_it_stand"]


def test_bt_51_the_bt_are_not_asked_and_nobody_answers_without_a_window():
    state, _ = revealed(hands={E: [KARAMA]})
    refused(state, AnswerRevealKarama(faction=BT), "BT-51", ViolationCode.NOT_ALLOWED)
    state, _ = let_reveal_stand(state)
    refusal = refused(state, AnswerRevealKarama(faction=E, cancel=True), "BT-51", ViolationCode.WRONG_PHASE)
    assert "No Bene Tleilaxu traitor reveal is waiting" in refusal.message


def test_bt_51_a_karama_spent_since_is_no_cancel():
    """The Emperor said cancel, then lost the card (an admin correction): the reveal stands."""
    state, _ = revealed(hands={E: [KARAMA]})
    state, _ = apply(state, AnswerRevealKarama(faction=E, cancel=True))
    state.faction(E).hand.remove(KARAMA)
    state.treachery_discard.append(KARAMA)
    state, _ = apply_all(state, AnswerRevealKarama(faction=A), AnswerRevealKarama(faction=H))
    assert betrayed(state)


# --- the game waits ----------------------------------------------------------------------------------------------


def test_bt_51_the_game_waits_while_the_window_is_open_and_the_set_aside_decision_comes_back():
    """Our ruling: the decisions open at the reveal are set aside, every other action waits; they come back as
    they were once the window closes, after the reveal's effect."""
    state, _ = revealed(hands={E: [KARAMA]})
    shipment = state.bt.karama_window.set_aside[0]
    assert shipment.kind == PromptKind.SHIPMENT and shipment.faction == A
    assert state.prompt(shipment.id) is None
    refusal = refused(state, Ship(faction=A, to_location=ARRAKEEN, tokens=1), "BT-51", ViolationCode.WRONG_PHASE)
    assert "waits" in refusal.message
    refused(state, UseKarama(faction=E, card=KARAMA, against=BT, advantage=Advantage.BT_TRAITOR_REVEAL), "BT-51")
    refused(state, RevealBtTraitor(faction=BT, leader=DUNCAN), "BT-51")
    refused(state, ForceDefault(admin="mod", reason="deadline", prompt_id=shipment.id))
    state, _ = apply_all(state, *STAND)
    back = state.prompt(shipment.id)
    assert back is not None and back.faction == A and back.kind == PromptKind.SHIPMENT
    # its deadline counts afresh, from the answer that closed the window (issue 24: not from the one before it)
    assert back.options == shipment.options and back.opened_at == state.seq
    state, _ = apply(state, SkipShipment(faction=A))
    assert violations(state) == []


def test_bt_51_while_the_window_waits_nothing_else_is_offered_to_do():
    """Only legal choices are offered: the any-time actions the window would refuse (a bribe, a Karama played, a
    standing order) are not offered while it waits, to anyone; the automatic players then answer the window."""
    state, _ = revealed(hands={E: [KARAMA]})
    before = {f: anytime_choices(state, f) for f in state.factions}
    assert before == {f: [] for f in state.factions}
    assert all(spontaneous_action(state, Rng.from_seed(seed)) is None for seed in range(50))
    state, _ = apply_all(state, *STAND)
    assert any(anytime_choices(state, f) for f in state.factions)  # the game goes on: offered again


# --- a Karama readied in advance (A-14's standing order) ---------------------------------------------------------


def test_bt_51_a_readied_karama_answers_at_once_and_silently():
    state = at(position(forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN], victories=[stronghold_won()],
                        hands={E: [KARAMA]}), Phase.MOVEMENT)
    state, _ = apply(state, UseKarama(faction=E, card=KARAMA, against=BT, advantage=Advantage.BT_TRAITOR_REVEAL))
    state, events = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert state.bt.karama_window.answers == {E: True}
    [told] = [e for e in events if e.type == "karama_window_answered"]
    assert told.audience == (E,)
    # The window's shape is the same as without the order: the Emperor's prompt opens and stays open.
    assert [p.faction for p in state.prompts if p.kind == KIND] == [A, E, H]
    assert [e.type for e in public(events)] == ["bt_traitor_revealed", "bt_karama_window"]
    # Its default is the readied answer; the others' is no.
    assert DEFAULTS[KIND](state, prompt_of(state, E, KIND)).cancel is True
    assert DEFAULTS[KIND](state, prompt_of(state, A, KIND)).cancel is False
    state, events = apply_all(state, AnswerRevealKarama(faction=A), AnswerRevealKarama(faction=H))
    assert not betrayed(state) and KARAMA in state.treachery_discard and state.karama_orders == []


def test_bt_51_several_cancels_the_first_in_storm_order_spends_its_karama_and_the_others_keep_theirs():
    state, _ = revealed(hands={E: [KARAMA], H: [KARAMA_2]})
    state, events = apply_all(state, AnswerRevealKarama(faction=H, cancel=True),
                              AnswerRevealKarama(faction=E, cancel=True), AnswerRevealKarama(faction=A))
    [played] = [e for e in public(events) if e.type == "karama_played"]
    assert played.data["faction"] == E.value  # storm order: Atreides, Emperor, Harkonnen
    assert state.faction(E).hand == [] and state.faction(H).hand == [KARAMA_2] and not betrayed(state)


def test_bt_51_a_15_the_bene_gesserit_cancel_with_a_worthless_card_before_their_karama(monkeypatch):
    """A-15 `character_advantages`: their worthless cards are Karama cards; the one spent is the worthless one."""
    monkeypatch.setitem(DOTS, BG, 18)
    state, _ = revealed(factions=(A, E, H, BG, BT), hands={BG: [KARAMA, WORTHLESS]}, character_advantages=True)
    assert prompt_of(state, BG, KIND).options == ["let_it_stand", "cancel"]
    state, events = apply_all(state, AnswerRevealKarama(faction=BG, cancel=True), *STAND)
    assert [e.data["card"] for e in public(events) if e.type == "karama_played"] == [WORTHLESS]
    assert state.faction(BG).hand == [KARAMA] and not betrayed(state)


def test_bt_51_a_card_readied_against_another_advantage_is_spent_last():
    state = at(position(forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN], victories=[stronghold_won()],
                        hands={E: [KARAMA, KARAMA_2]}), Phase.MOVEMENT)
    state, _ = apply(state, UseKarama(faction=E, card=KARAMA, against=H, advantage=Advantage.EXTRA_CARD))
    state, _ = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    state, events = apply_all(state, AnswerRevealKarama(faction=E, cancel=True), AnswerRevealKarama(faction=A),
                              AnswerRevealKarama(faction=H))
    assert [e.data["card"] for e in public(events) if e.type == "karama_played"] == [KARAMA_2]
    assert state.faction(E).hand == [KARAMA] and [o.card for o in state.karama_orders] == [KARAMA]


# --- defaults, deadlines and automatic players -------------------------------------------------------------------


def test_bt_51_the_deadline_default_is_no_and_the_reveal_then_stands():
    state, _ = revealed(hands={E: [KARAMA]})
    for faction in (A, E, H):
        prompt = prompt_of(state, faction, KIND)
        assert DEFAULTS[KIND](state, prompt) == AnswerRevealKarama(faction=faction, cancel=False)
        state, _ = apply(state, ForceDefault(admin="deadline", reason="the deadline passed", prompt_id=prompt.id))
    assert betrayed(state) and state.faction(E).hand == [KARAMA]


def test_bt_51_automatic_players_holding_karama_sometimes_cancel_and_never_without_one():
    state, _ = revealed(hands={E: [KARAMA]})
    holder = [SAMPLERS[KIND](state, prompt_of(state, E, KIND), Rng.from_seed(seed)).cancel for seed in range(30)]
    other = [SAMPLERS[KIND](state, prompt_of(state, A, KIND), Rng.from_seed(seed)).cancel for seed in range(30)]
    assert 0 < holder.count(True) < 30 and other.count(True) == 0


# --- a reveal in the battle round ---------------------------------------------------------------------------


@pytest.mark.parametrize("cancel", [False, True])
def test_bt_51_r_7_a_reveal_before_the_attack_decision_holds_the_battle_round_until_the_window_closes(cancel):
    state = battle_won_by_duncan(FLAT)
    state.faction(E).hand.append(take_card(state, KARAMA))
    state, _ = apply(state, MarkBtTraitor(faction=BT, leader=DUNCAN))
    attack = prompt_of(state, BT, PromptKind.BT_ATTACK)
    state, _ = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert state.prompt(attack.id) is None and not betrayed(state)
    refused(state, ChooseBtAttack(faction=BT, leader=None), "BT-51", ViolationCode.WRONG_PHASE)
    state, _ = apply_all(state, AnswerRevealKarama(faction=E, cancel=cancel), AnswerRevealKarama(faction=A),
                         AnswerRevealKarama(faction=H))
    assert betrayed(state) is not cancel and state.tokens_at(FLAT, A) == (7 if cancel else 0)
    assert state.prompt(attack.id) is not None
    state, _ = apply(state, ChooseBtAttack(faction=BT, leader=None))
    assert violations(state) == []


def test_bt_51_a_15_a_forecast_dial_set_aside_stays_secret_from_the_fremen():
    """A-15 `weather`: the Fremen learn next turn's storm once both forecast dials are in; a window opened between
    the two dials sets the second aside, and the first dial must not show as the forecast meanwhile."""
    state = position((A, E, H, F, BT), forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN], victories=[stronghold_won()])
    state = at(with_options(state, weather=True), Phase.STORM)
    state, _ = drive(state, lambda s: any(p.detail.get("forecast") for p in s.prompts))
    first = next(p for p in state.prompts if p.detail.get("forecast"))
    state, _ = apply(state, DialStorm(faction=first.faction, value=2))
    assert view(state, F).own.storm_forecast is None
    state, _ = apply(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    assert not any(p.kind == PromptKind.STORM_DIAL for p in state.prompts)
    assert view(state, F).own.storm_forecast is None
    state, _ = let_reveal_stand(state)
    assert any(p.detail.get("forecast") for p in state.prompts) and view(state, F).own.storm_forecast is None


# --- what the players read (bot/app/render.py, bot/app/feed.py) -------------------------------------------------


def test_bt_51_decisions_set_aside_by_the_window_are_told_paused_not_answered():
    """Issue 25 item 9: the storm dials set aside while the window waits were shown "all answered" and each card
    closed "the game moved on"; they are paused for the window and asked again once it closes."""
    state = at(position(forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN], victories=[stronghold_won()]), Phase.STORM)
    dials = [p for p in state.prompts if p.kind == PromptKind.STORM_DIAL]
    assert len(dials) == 2
    reveal = RevealBtTraitor(faction=BT, leader=DUNCAN)
    after, events = apply(state, reveal)
    texts = [m.text for m in action_messages(events, state, reveal, after)]
    assert not any("all answered" in text for text in texts)
    assert ("Storm dials: paused while the factions are asked about Karama against the Bene Tleilaxu reveal; "
            "they are asked again once that is answered.") in "\n".join(texts).split("\n")
    closed = {m.recipient.faction: m.text for m in action_messages(events, state, reveal, after)
              if m.edit_of in {f"card:{p.id}" for p in dials}}
    assert set(closed) == {p.faction.value for p in dials}
    assert all(text == "**Paused: the game waits for every faction to answer about Karama against the Bene "
                       "Tleilaxu reveal (BT-51). This decision is asked again, in a new card, once they have.**"
               for text in closed.values())
    # the last answer to the window: the dials come back, told as asked again
    for answer in STAND[:-1]:
        state, _ = apply(after, answer)
        after = state
    last = STAND[-1]
    back, events = apply(after, last)
    texts = [m.text for m in action_messages(events, after, last, back)]
    assert "Storm dials (asked again after the Karama window): asked of 2 (" in "\n".join(texts)


def cards_and_closings(state, action):
    """The DMs an action sends: each faction's new cards and the closing lines of the cards it closed."""
    after, events = apply(state, action)
    return after, {(m.recipient.faction, m.edit_of): m.text for m in action_messages(events, state, action, after)
                   if m.recipient.faction is not None}


def test_bt_51_the_window_card_names_the_reveal_what_happens_if_it_stands_and_what_a_karama_does():
    """Issue 25 item 8: the card read "Your decision: bt reveal karama (rule A-9)" with no facts."""
    state = at(position((A, E, H, BT), forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN], victories=[stronghold_won()],
                        hands={E: [KARAMA]}), Phase.MOVEMENT)
    _, sent = cards_and_closings(state, RevealBtTraitor(faction=BT, leader=DUNCAN))
    emperor, atreides, harkonnen = (sent[(f.value, None)] for f in (E, A, H))
    heading = "**Your decision: a Karama against the Bene Tleilaxu's traitor reveal** (rule BT-51; `/rules BT-51`)"
    assert all(card.startswith(heading + "\n") for card in (emperor, atreides, harkonnen))
    assert cited_rule("BT-51")[0] == "BT-51"
    assert ("- The Bene Tleilaxu revealed Duncan Idaho (strength 2), who led the Atreides' tokens to win Arrakeen, as "
            "their traitor (BT-23).\n- If the reveal stands, he goes to the tanks with the Atreides' 7 tokens there, "
            "and the Bene Tleilaxu take control of Arrakeen, for no spice (BT-23, BT-24).\n- A Karama cancels it: he "
            "stays with the Atreides, and so do their tokens; the Bene Tleilaxu's mark on him is gone (BT-51, R-31)."
            ) in emperor
    assert "You hold a card you may play as Karama." in emperor
    assert "You hold no card you may play as Karama: you can only let the reveal stand." in harkonnen
    assert "who led your tokens to win Arrakeen" in atreides and "with your 7 tokens there" in atreides
    assert all(card.endswith("If nobody answers (the deadline passes, or a moderator forces it): let the reveal "
                             "stand.") for card in (emperor, atreides, harkonnen))


def test_bt_51_each_card_closes_with_its_own_answer_when_the_last_answer_closes_the_window():
    """Issue 25 item 8: a card answered before the window closed read "Closed: the game moved on."."""
    state, _ = revealed(hands={E: [KARAMA]})
    ids = {p.faction: p.id for p in state.prompts if p.kind == KIND}
    state, early = cards_and_closings(state, AnswerRevealKarama(faction=E, cancel=True))
    assert not any(edit for _, edit in early)  # answered, still open: the answer may change
    state, _ = apply(state, AnswerRevealKarama(faction=A))
    _, closing = cards_and_closings(state, AnswerRevealKarama(faction=H))
    assert closing[(E.value, f"card:{ids[E]}")] == ("**You answered: play Karama to cancel the reveal. Every faction "
                                                    "has answered: the window is closed.**")
    assert closing[(A.value, f"card:{ids[A]}")] == ("**You answered: let the reveal stand. Every faction has "
                                                    "answered: the window is closed.**")
    assert closing[(H.value, f"card:{ids[H]}")] == "**You answered: let the reveal stand.**"


def test_bt_51_a_cancel_without_a_karama_is_refused_in_words():
    """Issue 25 item 8: `/bt karama-reveal answer=cancel` answered "Allowed: let_it_stand", a raw id."""
    state, _ = revealed(hands={E: [KARAMA]})
    refusal = refused(state, AnswerRevealKarama(faction=H, cancel=True), "BT-51")
    assert str(refusal) == ("[BT-51] You hold no Karama card: you cannot cancel the reveal, only let it stand. "
                            "Allowed: let it stand.")
    waiting = refused(state, RevealBtTraitor(faction=BT, leader=DUNCAN), "BT-51")
    assert str(waiting) == ("[BT-51] The game waits until every faction has answered whether it cancels the Bene "
                            "Tleilaxu reveal of Duncan Idaho with Karama.")
