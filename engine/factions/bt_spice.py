"""The Bene Tleilaxu spice win (BT-27, BT-28, BT-29, R-9, R-10, R-20) and the Karama tax on the BT (BT-51).

Declaring (BT-27) happens at the end of a turn's collection round: engine/phases/end_of_turn.py calls
`declare_if_ordered` once that turn's victory checks found no winner and the game goes on. The BT declare when
they hold at least 35 spice, have no declaration running, and their secret standing order says so
(`BtState.declare_order`, default True: declaring costs nothing; SetSpiceWinOrder changes it at any time).
Design: a standing order, not a question. Asking the BT only when they hold 35 would tell the table that
they do (a prompt's existence is public); asking at every turn's end would stop the game every turn.

The declaration sets 35 spice in open view (`BtState.open_spice`, public in every view); the rest stays behind
the shield. BT-28: the BT spend hidden spice first, so the open pile is touched only when their total falls
below 35; then it returns behind the shield and the declaration ends. `end_lapsed_declaration` checks this
after every action (engine/game.py apply), after a Karama tax (R-20) and before the win check.

The win (R-10): at the end of the next turn, after the stronghold victories and before the end-of-game
defaults, a declaration still running wins for the BT and their allies (A-8); the Bene Gesserit prediction
takes it like any win (BT-29, A-25). R-9: "at least 35".
"""

from __future__ import annotations

from engine.actions import KaramaTaxBt, SetSpiceWinOrder
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.bt_bidding import check_karama_against_bt, spend_karama_against_bt
from engine.flow import handles
from engine.ids import Faction
from engine.model import GameState
from engine.names import faction_does
from engine.rules.economy import pay
from engine.rules.karama import karama_words

BT = Faction.BENE_TLEILAXU
SPICE_WIN = 35  # BT-27, R-9: at least 35
KARAMA_TAX = 10  # BT-51
SPICE_WIN_REASON = "the Bene Tleilaxu kept their declared 35 spice for a full turn (BT-27)"


def declaration_running(state: GameState) -> bool:
    return state.bt is not None and state.bt.declared_turn is not None


def end_lapsed_declaration(state: GameState, log: EventLog) -> None:
    """BT-28, R-20: once the BT hold less than 35, the open pile returns behind the shield and the declaration
    ends; they may declare again at a later collection round."""
    if not declaration_running(state) or state.faction(BT).spice >= SPICE_WIN:
        return
    bt = state.bt_state()
    bt.open_spice, bt.declared_turn = 0, None
    log.public(EventType.SPICE_DECLARATION_ENDED,
               "The Bene Tleilaxu hold less than 35 spice: their open pile returns behind the shield and their "
               "spice-win declaration ends (BT-28).", faction=BT.value)


def declare_if_ordered(state: GameState, log: EventLog) -> None:
    """BT-27: at the end of a collection round, with 35 spice, no declaration running and the order to declare."""
    bt = state.bt
    if bt is None or declaration_running(state) or not bt.declare_order or state.faction(BT).spice < SPICE_WIN:
        return
    bt.open_spice = SPICE_WIN
    bt.declared_turn = state.turn
    log.public(EventType.SPICE_WIN_DECLARED,
               f"The Bene Tleilaxu declare a spice win: they set {SPICE_WIN} spice in open view. If they still hold "
               f"at least {SPICE_WIN} at the end of turn {state.turn + 1} and nobody else has won, they win (BT-27).",
               faction=BT.value, open_spice=SPICE_WIN, turn=state.turn)


def spice_win_due(state: GameState, log: EventLog) -> bool:
    """BT-27, R-9: at the end of the turn after the declaration the BT still hold at least 35 spice.
    (R-10: the caller asks only when no stronghold victory was found.)"""
    end_lapsed_declaration(state, log)
    declared = state.bt.declared_turn if state.bt is not None else None  # declaration_running, narrowed
    return declared is not None and declared < state.turn


def spice_win_team(state: GameState) -> list[Faction]:
    """R-10: allies share a BT spice win (A-8)."""
    return [BT, *state.ally_of(BT)]


@handles(SetSpiceWinOrder)
def set_spice_win_order(state: GameState, action: SetSpiceWinOrder, log: EventLog) -> None:
    if action.faction != BT or state.bt is None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "BT-27", "Only the Bene Tleilaxu may declare a spice win.")
    state.bt.declare_order = action.declare
    message = ("Your standing order: declare a spice win at the end of every collection round in which you hold "
               "at least 35 spice (BT-27)." if action.declare else
               "Your standing order: do not declare a spice win until you change this order (BT-27).")
    log.private(EventType.SPICE_WIN_ORDER_SET, BT, message, declare=action.declare)


@handles(KaramaTaxBt)
def karama_tax_bt(state: GameState, action: KaramaTaxBt, log: EventLog) -> None:
    """BT-51: 10 spice (all the BT have if less) paid at once to the bank; R-20: it may end a declaration."""
    check_karama_against_bt(state, action.faction, action.card)
    spend_karama_against_bt(state, action.faction, action.card)
    amount = min(KARAMA_TAX, state.faction(BT).spice)
    if amount:
        pay(state, BT, amount, None, "BT-51", "The Karama tax")
    log.public(
        EventType.KARAMA_VS_BT,
        f"{faction_does(action.faction, 'play', start=True)}"
        f" {karama_words(action.card)} to tax the Bene Tleilaxu: they pay {amount} "
        "spice to the bank "
        f"(BT-51{'; all they had' if amount < KARAMA_TAX else ''}).",
        faction=action.faction.value, card=action.card, use="tax", amount=amount,
    )
    end_lapsed_declaration(state, log)
