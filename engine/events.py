"""Events: what happened, in words and data, and who may learn it."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.ids import Faction

# How a private line begins when a standing order answered a decision for its owner (storm cards, traitor calls,
# bids, a move waived with the shipment): the owner alone reads it; the table reads what a click would have made.
BY_STANDING_ORDER = "By your standing order"


class EventType(StrEnum):
    """Every type of event the engine emits. A StrEnum: an event stored as JSON keeps the bare word, so the logs kept
    before this enum read back, and a type renamed here must keep its old value (or stored logs stop reading)."""

    ACTION_CANCELLED = "action_cancelled"
    ADMIN_CARD = "admin_card"
    ADMIN_CARD_GIVEN = "admin_card_given"
    ADMIN_FORCED_DEFAULT = "admin_forced_default"
    ADMIN_LEADER = "admin_leader"
    ADMIN_SET_SPICE = "admin_set_spice"
    ADMIN_SET_SPICE_AMOUNT = "admin_set_spice_amount"
    ADMIN_STORM = "admin_storm"
    ADMIN_TOKENS = "admin_tokens"
    ADVISOR_BY_ORDER = "advisor_by_order"
    ADVISOR_DECLINED = "advisor_declined"
    ADVISOR_ORDER_SET = "advisor_order_set"
    ADVISOR_SENT = "advisor_sent"
    ALLIANCE_BROKEN = "alliance_broken"
    ALLIANCE_FORMED = "alliance_formed"
    ALLIANCE_PROPOSED = "alliance_proposed"
    ALLIES_APART = "allies_apart"
    ALLY_REVIVAL_ORDER_SET = "ally_revival_order_set"
    ALLY_SPICE_GIVEN = "ally_spice_given"
    AUCTION_CARD_SEEN = "auction_card_seen"
    AUCTION_DEALT = "auction_dealt"
    AUCTION_RETURNED = "auction_returned"
    BATTLE_GONE = "battle_gone"
    BATTLE_STARTED = "battle_started"
    BATTLE_WON = "battle_won"
    BATTLES_OVER = "battles_over"
    BG_COEXIST = "bg_coexist"
    BG_FIGHTERS = "bg_fighters"
    BID_BY_ORDER = "bid_by_order"
    BID_MADE = "bid_made"
    BID_ORDER_SET = "bid_order_set"
    BID_PASSED = "bid_passed"
    BIDDING_OVER = "bidding_over"
    BRIBE_GIVEN = "bribe_given"
    BRIBES_RELEASED = "bribes_released"
    BT_ALLY_REVIVAL_ANSWER = "bt_ally_revival_answer"
    BT_ATTACK = "bt_attack"
    BT_ATTACK_CALLED_OFF = "bt_attack_called_off"
    BT_ATTACK_DECLINED = "bt_attack_declined"
    BT_ATTACK_RESOLVED = "bt_attack_resolved"
    BT_BETRAYAL = "bt_betrayal"
    BT_CONTROL_ENDED = "bt_control_ended"
    BT_IMPAIRMENT = "bt_impairment"
    BT_KARAMA_WINDOW = "bt_karama_window"
    BT_MARK_DECLINED = "bt_mark_declined"
    BT_MARK_WINDOW_CLOSED = "bt_mark_window_closed"
    BT_TRAITOR_MARKED = "bt_traitor_marked"
    BT_TRAITOR_REVEALED = "bt_traitor_revealed"
    BT_TRAP_RESOLVED = "bt_trap_resolved"
    CAPTIVE_RETURNED = "captive_returned"
    CAPTURED_LEADER_KEPT = "captured_leader_kept"
    CAPTURED_LEADER_KILLED = "captured_leader_killed"
    CARD_BOUGHT = "card_bought"
    CARD_GIVEN = "card_given"
    CARD_GIVEN_CARD = "card_given_card"
    CARD_PLAYED = "card_played"
    CARD_SOLD = "card_sold"
    CARD_UP = "card_up"
    CARDS_DEALT = "cards_dealt"
    CARDS_GIVEN_BACK = "cards_given_back"
    CARDS_RETURNED = "cards_returned"
    CHOAM_CHARITY = "choam_charity"
    COMBAT_SPICE_PAID = "combat_spice_paid"
    DECISION_MADE = "decision_made"
    DOTS_ASSIGNED = "dots_assigned"
    DOUBLE_TRAITOR = "double_traitor"
    ELITE_TOKENS_FIGHT = "elite_tokens_fight"
    EXPLOSION = "explosion"
    EXTRA_CARD_DRAWN = "extra_card_drawn"
    FREMEN_HALF_STORM_LOSSES = "fremen_half_storm_losses"
    GAME_CREATED = "game_created"
    GAME_OVER = "game_over"
    GUILD_TIMING_BY_ORDER = "guild_timing_by_order"
    GUILD_TIMING_ORDER_SET = "guild_timing_order_set"
    GUILD_TURN = "guild_turn"
    GUILD_WAITS = "guild_waits"
    HAND_TAKEN = "hand_taken"
    KARAMA_PLAYED = "karama_played"
    KARAMA_READIED = "karama_readied"
    KARAMA_VS_BT = "karama_vs_bt"
    KARAMA_WINDOW_ANSWERED = "karama_window_answered"
    KARAMA_WORM = "karama_worm"
    KWISATZ_HADERACH_ACTIVATED = "kwisatz_haderach_activated"
    KWISATZ_HADERACH_KILLED = "kwisatz_haderach_killed"
    LEADER_CAPTURED = "leader_captured"
    MOVE_BY_ORDER = "move_by_order"
    MOVE_SKIPPED = "move_skipped"
    MOVED = "moved"
    MOVEMENT_OVER = "movement_over"
    NEXUS_BY_ORDER = "nexus_by_order"
    NEXUS_CLOSED = "nexus_closed"
    NEXUS_DONE = "nexus_done"
    NEXUS_OPENED = "nexus_opened"
    NEXUS_ORDER_SET = "nexus_order_set"
    OUTBID_ORDER_SET = "outbid_order_set"
    PHASE_STARTED = "phase_started"
    PLAN_SEEN = "plan_seen"
    PLAN_SUBMITTED = "plan_submitted"
    PLANS_REVEALED = "plans_revealed"
    PREDICTION_MADE = "prediction_made"
    PRESCIENCE_ANSWERED = "prescience_answered"
    PRESCIENCE_ASKED = "prescience_asked"
    PRESCIENCE_DECLINED = "prescience_declined"
    REVIVAL_BY_ORDER = "revival_by_order"
    REVIVAL_ORDER_SET = "revival_order_set"
    REVIVED = "revived"
    SECOND_SPICE_BLOW = "second_spice_blow"
    SETUP_COMPLETE = "setup_complete"
    SHIPMENT_ORDER = "shipment_order"
    SHIPMENT_SKIPPED = "shipment_skipped"
    SHIPPED = "shipped"
    SHIPPED_BACK = "shipped_back"
    SPECIAL_KARAMA = "special_karama"
    SPECIAL_KARAMA_READIED = "special_karama_readied"
    SPICE_BLOW = "spice_blow"
    SPICE_BLOW_IN_STORM = "spice_blow_in_storm"
    SPICE_BLOW_STOPPED = "spice_blow_stopped"
    SPICE_COLLECTED = "spice_collected"
    SPICE_DECK_RESHUFFLED = "spice_deck_reshuffled"
    SPICE_DECK_SEEN = "spice_deck_seen"
    SPICE_DECLARATION_ENDED = "spice_declaration_ended"
    SPICE_WIN_DECLARED = "spice_win_declared"
    SPICE_WIN_ORDER_SET = "spice_win_order_set"
    STARTING_CARDS = "starting_cards"
    STARTING_TOKENS_PLACED = "starting_tokens_placed"
    STORM_CARD_ORDER_SET = "storm_card_order_set"
    STORM_CARDS_CHOSEN = "storm_cards_chosen"
    STORM_CARDS_WINDOW = "storm_cards_window"
    STORM_DIALED = "storm_dialed"
    STORM_DIALING = "storm_dialing"
    STORM_FIXED = "storm_fixed"
    STORM_FORECAST = "storm_forecast"
    STORM_FORECAST_DIALING = "storm_forecast_dialing"
    STORM_FORECAST_USED = "storm_forecast_used"
    STORM_LOSSES = "storm_losses"
    STORM_MOVED = "storm_moved"
    STORM_SPICE = "storm_spice"
    STRONGHOLD_INCOME = "stronghold_income"
    TRAITOR_ANSWER = "traitor_answer"
    TRAITOR_CALLED = "traitor_called"
    TRAITOR_CHOSEN = "traitor_chosen"
    TRAITOR_ORDER = "traitor_order"
    TRAITORS_DEALT = "traitors_dealt"
    TRAITORS_KEPT = "traitors_kept"
    TRAP_ATTACK = "trap_attack"
    TRAP_DISCARDED = "trap_discarded"
    TRAP_LAID = "trap_laid"
    TRAP_LAID_CARD = "trap_laid_card"
    TRAP_SEEN = "trap_seen"
    TRAP_TRIGGERED = "trap_triggered"
    TRAPS_LAID = "traps_laid"
    TREACHERY_RESHUFFLED = "treachery_reshuffled"
    TRUTHTRANCE_ANSWERED = "truthtrance_answered"
    VOICE_DECLINED = "voice_declined"
    VOICE_USED = "voice_used"
    WORM = "worm"
    WORM_AGAIN = "worm_again"
    WORM_IMMUNITY = "worm_immunity"
    WORM_LOSSES = "worm_losses"
    WORM_NOT_PLACED = "worm_not_placed"
    WORM_NOTHING = "worm_nothing"
    WORM_PLACED = "worm_placed"
    WORM_PLACEMENT_OFFERED = "worm_placement_offered"
    WORM_RIDDEN = "worm_ridden"
    WORM_RIDE_DECLINED = "worm_ride_declined"
    WORM_RIDE_OFFERED = "worm_ride_offered"
    WORM_SET_ASIDE = "worm_set_aside"
    WORM_SPICE = "worm_spice"
    WORMS_SHUFFLED_BACK = "worms_shuffled_back"


# Private events that only restate the actor's own choice ("You dialed 3 for the storm."): a front that shows the
# actor their choice where they made it may leave these out of what it sends them (bot/app/render.py). Told to anyone
# else, or made by a standing order (BY_STANDING_ORDER), they are news.
OWN_CHOICE_ECHOES: frozenset[EventType] = frozenset({
    EventType.STORM_DIALED, EventType.STORM_CARDS_CHOSEN, EventType.TRAITOR_CHOSEN, EventType.PLAN_SUBMITTED,
    EventType.KARAMA_WINDOW_ANSWERED, EventType.TRAITOR_ANSWER, EventType.BT_TRAITOR_MARKED,
    EventType.BT_MARK_DECLINED, EventType.BT_ALLY_REVIVAL_ANSWER, EventType.KARAMA_READIED,
    EventType.SPECIAL_KARAMA_READIED, EventType.TRAITOR_ORDER, EventType.STORM_CARD_ORDER_SET,
    EventType.SPICE_WIN_ORDER_SET, EventType.REVIVAL_ORDER_SET, EventType.OUTBID_ORDER_SET, EventType.NEXUS_ORDER_SET,
    EventType.GUILD_TIMING_ORDER_SET, EventType.BID_ORDER_SET, EventType.ALLY_REVIVAL_ORDER_SET,
    EventType.ADVISOR_ORDER_SET,
})


class Event(BaseModel):
    """One thing that happened. `audience` None means the whole table; otherwise only those factions."""

    model_config = ConfigDict(frozen=True)

    type: EventType
    message: str
    audience: tuple[Faction, ...] | None = None
    data: dict[str, Any] = Field(default_factory=dict)

    @property
    def public(self) -> bool:
        return self.audience is None

    def visible_to(self, viewer: Faction | None) -> bool:
        """The table (viewer None) sees public events only; a faction also sees those addressed to it."""
        return self.audience is None or (viewer is not None and viewer in self.audience)


class EventLog:
    """Collects the events of one action, in order."""

    def __init__(self) -> None:
        self.items: list[Event] = []

    def public(self, type_: EventType, message: str, **data: Any) -> None:
        self.items.append(Event(type=type_, message=message, data=data))

    def private(self, type_: EventType, audience: Faction | tuple[Faction, ...], message: str, **data: Any) -> None:
        factions = (audience,) if isinstance(audience, Faction) else tuple(audience)
        self.items.append(Event(type=type_, message=message, audience=factions, data=data))


def visible_events(events: list[Event], viewer: Faction | None) -> list[Event]:
    return [e for e in events if e.visible_to(viewer)]
