"""Who may receive each kind of private event: the factions entitled to know what it says.

Most private events tell one faction about its own things (its dial, its cards, its plan); a few are shared by
the rules: a BT gift (BT-40, the BT and the receiver), the answer to prescience (A-26, the asker and the
target), the hands swapped by the Harkonnen's special Karama (A-14, the Harkonnen and their target), spice
given to an ally (A-26, the two allies). The Atreides alone see the card up for auction, the top spice card, a
trap that strikes them (BT-34) and, with their special Karama, the opponent's plan (A-14).

Each rule reads the states before and after the action, the action and the event's own data, never the event's
audience: `allowed` says who may know, and the leak check compares that with whom the event went to. A private
event type without a rule here is itself reported, so that a new secret message has to say who may read it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from engine.actions import Action, ForceDefault, PlayerAction, SkipShipment
from engine.events import Event, EventType
from engine.ids import Faction
from engine.model import FactionState, GameState, PromptKind
from engine.phases.movement import turn_faction
from engine.rules.karama import Advantage


class Step(NamedTuple):
    """One action and the states around it; `before` and `action` are None for the events of a new game."""

    before: GameState | None
    action: Action | None
    after: GameState


Rule = Callable[[Event, Step], set[Faction]]


def actor(step: Step) -> Faction | None:
    """The faction whose decision the action is: its player, or the faction whose default a moderator forced."""
    if isinstance(step.action, PlayerAction):
        return step.action.faction
    if isinstance(step.action, ForceDefault) and step.before is not None:
        prompt = step.before.prompt(step.action.prompt_id)
        return prompt.faction if prompt is not None else None
    return None


def _only(faction: Faction) -> Rule:
    return lambda event, step: {faction}


def _closed(kind: PromptKind) -> Rule:
    """The factions whose decision of `kind` this action answered (the event reports that answer)."""
    def rule(event: Event, step: Step) -> set[Faction]:
        if step.before is None:
            return set()
        return {p.faction for p in step.before.prompts if p.kind == kind and step.after.prompt(p.id) is None}
    return rule


def _holders(key: str) -> Rule:
    """The faction now holding the card(s) the event names: a card dealt, bought, drawn or handed over."""
    def rule(event: Event, step: Step) -> set[Faction]:
        cards = event.data.get(key)
        cards = set(cards) if isinstance(cards, list) else {cards}
        return {f for f, fs in step.after.factions.items() if cards <= set(fs.hand)}
    return rule


def _the_actor(event: Event, step: Step) -> set[Faction]:
    faction = actor(step)
    return {faction} if faction is not None else set()


def _no_move_order_owner(event: Event, step: Step) -> set[Faction]:
    """Whose "ship nothing, move nothing" order waived a move: given with this very skip, or standing since the
    shipment of the faction whose turn it was (its move asked only after another decision, e.g. an advisor)."""
    if isinstance(step.action, SkipShipment) and step.action.no_move:
        return {step.action.faction}
    owner = turn_faction(step.before) if step.before is not None and step.before.movement is not None \
        and step.before.movement.no_move else None
    return {owner} if owner is not None else set()


def _traitors_kept(event: Event, step: Step) -> set[Faction]:
    return {f for f, fs in step.after.factions.items() if fs.traitors == event.data["traitors"]}


def _traitors_dealt(event: Event, step: Step) -> set[Faction]:
    return {p.faction for p in step.after.prompts
            if p.kind == PromptKind.TRAITOR_PICK and p.options == event.data["traitors"]}


def _traitor_chosen(event: Event, step: Step) -> set[Faction]:
    return {f for f, fs in step.after.factions.items() if event.data["leader"] in fs.traitors}


def _plan_submitted(event: Event, step: Step) -> set[Faction]:
    """The side whose plan decision the event answers; without the state before it, the side whose plan on the
    wheel is the one the event tells."""
    if step.before is not None:
        prompt = step.before.prompt(event.data["prompt"])
        return {prompt.faction} if prompt is not None else set()
    battle = step.after.battle.current if step.after.battle is not None else None
    plans = battle.plans if battle is not None else {}
    return {f for f, plan in plans.items() if plan.model_dump(mode="json") == event.data["plan"]}


def _traitor_answer(event: Event, step: Step) -> set[Faction]:
    """A-13: the answer to a traitor question, or the standing order that answered it at once."""
    automatic = {f for f, fs in step.after.factions.items() if fs.auto_traitor}
    return _closed(PromptKind.TRAITOR_CALL)(event, step) | automatic


def _karama_window_answer(event: Event, step: Step) -> set[Faction]:
    """BT-51: an answer in the Karama window after a BT reveal, given by its decider or, at once, by the Karama
    it had readied against such reveals."""
    readied = {o.faction for state in (step.before, step.after) if state is not None for o in state.karama_orders
               if o.advantage == Advantage.BT_TRAITOR_REVEAL}
    return _the_actor(event, step) | readied


def _ordered(has_order: Callable[[FactionState], bool]) -> Rule:
    """The factions with a standing order (`has_order`) before or after the action: an order given by this very
    action answers at once, and one may lapse as it answers."""
    def rule(event: Event, step: Step) -> set[Faction]:
        return {f for state in (step.before, step.after) if state is not None
                for f, fs in state.factions.items() if has_order(fs)}
    return rule


def _storm_cards_chosen(event: Event, step: Step) -> set[Faction]:
    """An answer to the storm-card window: by its decider's click, or at once by a standing order never to play
    one (the window is opened for everyone all the same)."""
    return _closed(PromptKind.STORM_CARDS)(event, step) | _ordered(lambda fs: fs.never_storm_cards)(event, step)


def _bidding_by_order(event: Event, step: Step) -> set[Faction]:
    """A-6: a bid or a pass made by a faction's standing order (a bid order, or the order to pass when outbid): the
    factions with such an order before or after the action (a bid order lapses with its card or its auction), or
    the one who gave it by this action."""
    ordered = _ordered(lambda fs: fs.bid_order.auto_pass or fs.bid_order.max_bid is not None or fs.pass_when_outbid)
    return ordered(event, step) | _the_actor(event, step)


def _prescience_answered(event: Event, step: Step) -> set[Faction]:
    """A-26: the asker and the target; the answer binds the target's plan."""
    battle = step.before.battle.current if step.before is not None and step.before.battle else None
    if battle is None:
        return set()
    return {f for f in (battle.prescience_asker, battle.prescience_target) if f is not None}


def _orders(attribute: str) -> Rule:
    """The faction that readied the Karama card the event names (A-14)."""
    def rule(event: Event, step: Step) -> set[Faction]:
        return {o.faction for o in getattr(step.after, attribute) if o.card == event.data["card"]}
    return rule


def _with(key: str, faction: Faction | None = None) -> Rule:
    """Two parties: the faction named under `key` in the event, and `faction` (or the one under "faction")."""
    def rule(event: Event, step: Step) -> set[Faction]:
        other = faction or Faction(event.data["faction"])
        return {other, Faction(event.data[key])}
    return rule


ATREIDES, BENE_GESSERIT, FREMEN, HARKONNEN, BENE_TLEILAXU = (
    Faction.ATREIDES, Faction.BENE_GESSERIT, Faction.FREMEN, Faction.HARKONNEN, Faction.BENE_TLEILAXU,
)

# Events about one faction's own things: exactly one reader, the one the rule finds.
OWN: dict[EventType, Rule] = {
    EventType.CARDS_DEALT: _holders("cards"),
    EventType.CARD_BOUGHT: _holders("card"),
    EventType.EXTRA_CARD_DRAWN: _holders("card"),
    EventType.ADMIN_CARD_GIVEN: _holders("card"),
    EventType.TRAITORS_KEPT: _traitors_kept,
    EventType.TRAITORS_DEALT: _traitors_dealt,
    EventType.TRAITOR_CHOSEN: _traitor_chosen,
    EventType.PREDICTION_MADE: _only(BENE_GESSERIT),
    EventType.STORM_DIALED: _closed(PromptKind.STORM_DIAL),
    EventType.STORM_CARDS_CHOSEN: _storm_cards_chosen,
    EventType.STORM_FORECAST: _only(FREMEN),  # A-15 `weather`
    EventType.PLAN_SUBMITTED: _plan_submitted,
    EventType.TRAITOR_ANSWER: _traitor_answer,
    EventType.TRAITOR_ORDER: _the_actor,
    EventType.STORM_CARD_ORDER_SET: _the_actor,
    EventType.REVIVAL_ORDER_SET: _the_actor,
    EventType.REVIVAL_BY_ORDER: _ordered(lambda fs: fs.revive_free_tokens),
    EventType.GUILD_TIMING_ORDER_SET: _the_actor,
    EventType.GUILD_TIMING_BY_ORDER: _ordered(lambda fs: fs.guild_timing_in_storm_order),
    EventType.ADVISOR_ORDER_SET: _the_actor,
    EventType.ADVISOR_BY_ORDER: _ordered(lambda fs: fs.advisor_order != "ask"),
    EventType.NEXUS_ORDER_SET: _the_actor,
    EventType.NEXUS_BY_ORDER: _ordered(lambda fs: fs.nexus_done_at_once),
    EventType.MOVE_BY_ORDER: _no_move_order_owner,
    EventType.BID_BY_ORDER: _bidding_by_order,
    EventType.KARAMA_WINDOW_ANSWERED: _karama_window_answer,
    EventType.BID_ORDER_SET: _the_actor,
    EventType.OUTBID_ORDER_SET: _the_actor,
    EventType.ADMIN_SET_SPICE_AMOUNT: _the_actor,
    EventType.KARAMA_READIED: _orders("karama_orders"),
    EventType.SPECIAL_KARAMA_READIED: _orders("special_karama_orders"),
    EventType.TRAPS_LAID: _only(BENE_TLEILAXU),
    EventType.TRAP_LAID_CARD: _only(BENE_TLEILAXU),
    EventType.BT_MARK_DECLINED: _only(BENE_TLEILAXU),
    EventType.BT_MARK_WINDOW_CLOSED: _only(BENE_TLEILAXU),
    EventType.BT_TRAITOR_MARKED: _only(BENE_TLEILAXU),
    EventType.SPICE_WIN_ORDER_SET: _only(BENE_TLEILAXU),
    EventType.ALLY_REVIVAL_ORDER_SET: _only(BENE_TLEILAXU),  # BT-60
    EventType.BT_ALLY_REVIVAL_ANSWER: _only(BENE_TLEILAXU),  # BT-60: by a click or by the standing order
    EventType.AUCTION_CARD_SEEN: _only(ATREIDES),  # the Atreides' prescience
    EventType.SPICE_DECK_SEEN: _only(ATREIDES),
    EventType.TRAP_SEEN: _only(ATREIDES),  # BT-34, R-22
    EventType.PLAN_SEEN: _only(ATREIDES),  # A-14 special Karama
}

# Events the rules let two factions share.
SHARED: dict[EventType, Rule] = {
    EventType.PRESCIENCE_ANSWERED: _prescience_answered,
    EventType.CARD_GIVEN_CARD: _with("to", BENE_TLEILAXU),  # BT-40
    EventType.HAND_TAKEN: _with("target", HARKONNEN),
    EventType.CARDS_GIVEN_BACK: _with("target", HARKONNEN),
    EventType.ALLY_SPICE_GIVEN: _with("to"),
}


def audience_problems(event: Event, step: Step) -> list[str]:
    """What is wrong with whom a private event went to: readers not entitled to it, or no rule for it."""
    readers = set(event.audience or ())
    if not readers:
        return [f"the private event {event.type} has no reader"]
    rule = OWN.get(event.type) or SHARED.get(event.type)
    if rule is None:
        return [f"the private event {event.type} has no audience rule (engine/secrecy/audiences.py)"]
    allowed = rule(event, step)
    wrong = readers - allowed
    if wrong or (event.type in OWN and len(readers) != 1):
        names = ", ".join(sorted(f.value for f in readers))
        return [f"the private event {event.type} ({event.message!r}) went to {names}; only "
                f"{', '.join(sorted(f.value for f in allowed)) or 'nobody'} may read it"]
    return []
