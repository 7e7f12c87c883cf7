"""BT-51, BT-26, R-31: a Karama cancels a BT traitor reveal, answered once the reveal is seen.

A reveal that would betray tokens (engine/factions/bt_traitors.py `reveal_traitor`) is public at once; its effect
(the leader and his faction's tokens to the tanks, BT control) waits in `BtState.karama_window` while a window is
open on that public fact:

- Every faction but the BT gets a SECRET, blocking BT_REVEAL_KARAMA prompt, whatever it holds, so the window's
  shape tells nothing. Its options are the decider's own (views show them to the decider only, like the storm-card
  window): "let_it_stand", and "cancel" when it holds a card it may play as Karama (A-14; A-15: a worthless card
  for the Bene Gesserit). A cancel without such a card is refused, to the decider only.
- A Karama readied against BT_TRAITOR_REVEAL (engine/rules/karama.py standing order) answers "cancel" for its owner at
  once, silently: the prompt still opens and stays open like everyone else's, and is answered already.
- Answers are secret until the window closes, and an answered prompt stays open until then (its answer may be
  changed): the table sees the whole window waiting, never who has answered, so an answer readied in advance
  looks like any other. The window closes when every faction asked has answered (a deadline's default: its answer
  so far, else "no").
- Several cancels: the first faction in storm order that still holds a Karama spends one (revealed: public);
  the others keep their cards (and their readied orders), since one Karama cancels the reveal (our ruling).
  A cancel: the leader stays with his faction, the tokens stay (BT-51), the mark is gone (R-31, already removed
  at the reveal). No cancel: the betrayal of BT-23.

While the window is open the game waits (our ruling, for a reveal "at any time", BT-23, made during another
decision): the decisions open at the reveal are set aside, unanswerable, and come back as they were (same ids,
their deadlines counted afresh) when the window closes, after the reveal's effect; every player action but an
answer to the window is refused (BT-51). So nothing can move the betrayed tokens, or anything else, meanwhile.
Admin corrections still apply.
"""

from __future__ import annotations

from engine.actions import Action, AnswerRevealKarama, PlayerAction
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.flow import Details, default_for, details_for, handles, open_prompt, open_prompt_of, sampler_for
from engine.ids import Faction
from engine.model import BattleVictory, GameState, Prompt, PromptKind, RevealKaramaWindow, required
from engine.names import counted, faction_does, faction_name, faction_possessive, leader_name, pronouns
from engine.rng import Rng
from engine.rules.board import locations_of
from engine.rules.forces import wipe_out
from engine.rules.karama import Advantage, is_karama, karama_cards, karama_words
from engine.rules.order import storm_order

BT = Faction.BENE_TLEILAXU
RULE = "BT-51"
CANCEL, LET_IT_STAND = "cancel", "let_it_stand"
KIND = PromptKind.BT_REVEAL_KARAMA


@details_for(PromptKind.BT_REVEAL_KARAMA)
class BtRevealKaramaDetails(Details):
    leader: str
    betrayed: Faction
    territories: list[str]


def karama_window(state: GameState) -> RevealKaramaWindow | None:
    return state.bt.karama_window if state.bt is not None else None


def set_aside_prompts(state: GameState) -> list[Prompt]:
    """The decisions waiting for the window to close (for views that ask what is being decided)."""
    window = karama_window(state)
    return list(window.set_aside) if window is not None else []


def asked(state: GameState) -> list[Faction]:
    """Every faction but the BT, in storm order."""
    return [f for f in storm_order(state) if f != BT]


def answer_so_far(state: GameState, faction: Faction) -> bool | None:
    """The faction's answer to the open window (True: cancel), None before it answers: its own secret."""
    window = karama_window(state)
    return window.answers.get(faction) if window is not None else None


def _readied(state: GameState, faction: Faction) -> str | None:
    """The card of the faction's standing Karama order against BT reveals (A-14), if it still holds it."""
    hand = state.faction(faction).hand
    return next((o.card for o in state.karama_orders if o.faction == faction
                 and o.advantage == Advantage.BT_TRAITOR_REVEAL and o.card in hand), None)


def open_karama_window(state: GameState, leader: str, faction: Faction, betrayals: list[BattleVictory],
                       log: EventLog) -> None:
    """BT-51: the reveal of `leader` would betray `faction`'s tokens in `betrayals`; ask before it takes effect.
    Called by engine/factions/bt_traitors.py once the reveal is public."""
    window = RevealKaramaWindow(leader=leader, faction=faction, betrayals=list(betrayals),
                                set_aside=list(state.prompts))
    state.bt_state().karama_window = window
    state.prompts = []
    for decider in asked(state):
        options = [LET_IT_STAND, CANCEL] if karama_cards(state, decider) else [LET_IT_STAND]
        open_prompt(state, PromptKind.BT_REVEAL_KARAMA, decider, secret=True, options=options, leader=leader,
                    betrayed=faction.value, territories=[v.territory for v in betrayals])
        if _readied(state, decider) is not None:
            window.answers[decider] = True
            log.private(EventType.KARAMA_WINDOW_ANSWERED,
                        decider, f"Your readied Karama answers: you cancel the reveal of "
                        f"{leader_name(leader)}. You may change your answer until every faction has answered.",
                        cancel=True, readied=True)
    territories = " and ".join(v.territory for v in betrayals)
    log.public(EventType.BT_KARAMA_WINDOW, f"Before the betrayal takes effect, every faction but the Bene Tleilaxu is "
               f"asked in secret whether it plays Karama to cancel the reveal of {leader_name(leader)} (BT-51): "
               f"{faction_name(faction)} tokens in {territories} wait.", leader=leader, faction=faction.value,
               territories=[v.territory for v in betrayals])


@handles(AnswerRevealKarama)
def answer_karama_window(state: GameState, action: AnswerRevealKarama, log: EventLog) -> None:
    faction = action.faction
    open_prompt_of(state, faction, KIND, RULE)  # stays open until the window closes
    if action.cancel and not karama_cards(state, faction):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE, "You hold no Karama card: you cannot cancel the "
                            "reveal, only let it stand.", [LET_IT_STAND])
    window = required(state.bt_state().karama_window, "a Karama window open while its decisions are")
    window.answers[faction] = action.cancel
    what = "cancel the reveal with Karama" if action.cancel else "let the reveal stand"
    closing = all(f in window.answers for f in asked(state))
    after = "Every faction has answered." if closing else "You may change your answer until every faction has answered."
    log.private(EventType.KARAMA_WINDOW_ANSWERED, faction, f"You {what}. {after}", cancel=action.cancel)
    if closing:
        _close(state, window, log)


def _close(state: GameState, window: RevealKaramaWindow, log: EventLog) -> None:
    state.bt_state().karama_window = None
    state.prompts = [p for p in state.prompts if p.kind != KIND]
    canceller = next((f for f in asked(state) if window.answers.get(f) and karama_cards(state, f)), None)
    if canceller is not None:
        _cancel(state, window, canceller, log)
    else:
        _betray(state, window, log)
    for prompt in window.set_aside:  # back as they were; their deadlines count from now
        state.prompts.append(prompt.model_copy(update={"opened_at": state.seq}))


def _card_to_spend(state: GameState, faction: Faction) -> str:
    """The card readied against the reveal; else one readied for nothing else, a worthless card (A-15, the Bene
    Gesserit) before a true Karama."""
    readied = _readied(state, faction)
    if readied is not None:
        return readied
    kept = {o.card for o in state.karama_orders} | {o.card for o in state.special_karama_orders}
    return min(karama_cards(state, faction), key=lambda card: (card in kept, is_karama(card)))


def _cancel(state: GameState, window: RevealKaramaWindow, faction: Faction, log: EventLog) -> None:
    """BT-51: the leader stays with his faction and the tokens stay; R-31: the mark is gone (since the reveal)."""
    card = _card_to_spend(state, faction)
    state.faction(faction).hand.remove(card)
    state.treachery_discard.append(card)
    log.public(EventType.KARAMA_PLAYED, f"{faction_does(faction, 'play', start=True)}"
                                f" {karama_words(card)}: the Bene Tleilaxu reveal of "
               f"{leader_name(window.leader)} is cancelled. {pronouns(window.leader).subject.capitalize()} stays with "
               f"the {faction_name(window.faction)} and so do their tokens (BT-26, BT-51, R-31).",
               faction=faction.value, advantage=Advantage.BT_TRAITOR_REVEAL.value, card=card, leader=window.leader)


def _betray(state: GameState, window: RevealKaramaWindow, log: EventLog) -> None:
    """BT-23: he dies (a captive into his own faction's tanks, A-15), his faction's tokens there go to the tanks,
    the BT take control, and gain no spice."""
    leader = window.leader
    state.captured.pop(leader, None)
    state.faction(load_game_data().leader(leader).faction).leaders_in_tanks.append(leader)
    taken = []
    for record in window.betrayals:
        lost = sum(wipe_out(state, loc, record.faction) for loc in locations_of(record.territory))
        if record in state.victories:
            state.victories.remove(record)
        controlled = state.bt_state().controlled
        if record.territory not in controlled:
            controlled.append(record.territory)
        taken.append((record.territory, lost))
    where = " and ".join(f"{counted(lost, 'token')} in {territory}" for territory, lost in taken)
    log.public(EventType.BT_BETRAYAL, f"No Karama: {leader_name(leader)} goes to the tanks with "
               f"{faction_possessive(window.faction)} {where}; the Bene Tleilaxu now control "
               f"{' and '.join(t for t, _ in taken)} and gain no spice (BT-23).", leader=leader,
               faction=window.faction.value, territories=[t for t, _ in taken], tokens=sum(lost for _, lost in taken))


def refuse_while_waiting(state: GameState, action: Action) -> None:
    """BT-51: while the window is open the game waits; only its answers are taken (engine/game.py `apply`)."""
    window = karama_window(state)
    if window is None or not isinstance(action, PlayerAction) or isinstance(action, AnswerRevealKarama):
        return
    raise RuleViolation(ViolationCode.WRONG_PHASE, RULE, f"The game waits until every faction has answered whether it "
                        f"cancels the Bene Tleilaxu reveal of {leader_name(window.leader)} with Karama.")


@default_for(PromptKind.BT_REVEAL_KARAMA)
def _default_answer(state: GameState, prompt: Prompt) -> AnswerRevealKarama:
    """The answer given so far (a readied Karama's), else no: the reveal stands."""
    window = karama_window(state)
    cancel = bool(window and window.answers.get(prompt.faction)) and bool(karama_cards(state, prompt.faction))
    return AnswerRevealKarama(faction=prompt.faction, cancel=cancel)


@sampler_for(PromptKind.BT_REVEAL_KARAMA)
def _sample_answer(state: GameState, prompt: Prompt, rng: Rng) -> AnswerRevealKarama:
    """Automatic players holding a Karama cancel one time in three. The draw is made whatever the hand holds, so
    that their randomness depends on no secret (see engine/rules/cards.py)."""
    roll = rng.below(3)
    return AnswerRevealKarama(faction=prompt.faction, cancel=CANCEL in prompt.options and roll == 0)
