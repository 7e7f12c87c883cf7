"""Shipment (1979 rules: Shipment; A-8, A-22, A-23, A-26; BT-31, R-24) and the Bene Gesserit spiritual
advisor: one shipment per faction in its turn of the movement round (engine/phases/movement.py).

From reserves: 1 spice a token into a stronghold, 2 elsewhere, paid to the Guild (the bank when the Guild
ships); the Guild and its allies pay half, rounded up; only the Guild ships territory to territory or back
to reserves; the Fremen bring tokens free near The Great Flat. Nothing ships into the storm or into a
stronghold already holding two other factions. Everything here is public but the Bene Gesserit's standing
order for the advisor (`SetAdvisorOrder`): "Polar Sink" or "never" answers each advisor decision as it opens, as a
click on that answer would; the table reads the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.actions import SendAdvisor, SetAdvisorOrder, Ship, ShipToReserves, SkipShipment
from engine.data import POLAR_SINK, load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import BY_STANDING_ORDER, EventLog, EventType
from engine.factions.bene_tleilaxu import free_to_leave, frozen_tokens
from engine.factions.bt_control import tokens_leave
from engine.factions.bt_impairments import NO_SHIPPING, check_not_impaired, is_impaired
from engine.factions.special_karama import shipment_stopped
from engine.flow import Details, default_for, details_for, handles, open_prompt, sampler_for, take_prompt
from engine.ids import Faction
from engine.model import GameState, Prompt, PromptKind
from engine.names import counted, faction_does, location_label
from engine.rng import Rng
from engine.rules.board import (
    board_index,
    factions_in_territory,
    in_storm,
    is_stronghold,
    resolve_location,
    territory_of,
)
from engine.rules.economy import pay
from engine.rules.forces import from_reserves, move_tokens, to_reserves
from engine.rules.karama import Advantage, karama_cancels

RULE_SHIP = "1979 rules: Shipment"
RULE_STORM = "1979 rules: Storm"  # no shipping into, no moving into, out of or through a storm sector
RULE_ADVISOR = "1979 rules: Bene Gesserit spiritual advisor"
ACCEPT, DECLINE = "accept", "decline"  # the spiritual advisor's options: to the Polar Sink, or none
WITH_SHIPMENT = "with_shipment"  # the advisor's option beside ACCEPT and DECLINE
STRONGHOLD_RATE, ELSEWHERE_RATE = 1, 2  # spice per token shipped

GUILD, FREMEN, BG = Faction.GUILD, Faction.FREMEN, Faction.BENE_GESSERIT


# --- queries shared with movement ------------------------------------------------------------


def stronghold_full(state: GameState, faction: Faction, territory: str) -> bool:
    """1979 rules: no shipping into, and no moving into or through, a stronghold that already holds tokens
    of two other factions."""
    if not is_stronghold(territory):
        return False
    return len([f for f in factions_in_territory(state, territory) if f != faction]) >= 2


def full_strongholds(state: GameState, faction: Faction) -> set[str]:
    """The strongholds `stronghold_full` closes to the faction, decided once for a look over many locations."""
    return {territory for territory in board_index().strongholds if stronghold_full(state, faction, territory)}


def board_order(locations: Iterable[str]) -> list[str]:
    return sorted(locations, key=board_index().position.__getitem__)


def movable_tokens(state: GameState, faction: Faction, location: str) -> int:
    """How many of the faction's tokens may leave a location by a move or (the Guild) a shipment: none from under
    the storm, and never those a trap froze this turn (BT-31, R-24)."""
    if in_storm(state, location):
        return 0
    return min(state.tokens_at(location, faction), free_to_leave(state, territory_of(location), faction))


def can_leave(state: GameState, faction: Faction, location: str) -> bool:
    return movable_tokens(state, faction, location) > 0


def check_can_leave(state: GameState, faction: Faction, location: str, tokens: int, rule: str) -> None:
    """`tokens` leave a location by a move (`rule` BT-31) or (the Guild, A-23) a shipment from the board (R-24):
    not those a trap froze this turn, nor from under the storm (1979 rules: Storm; for the Guild's shipments from
    the board this is our reading of "no moving out of a storm sector")."""
    territory = territory_of(location)
    frozen = frozen_tokens(state, territory, faction)
    free = free_to_leave(state, territory, faction)
    if tokens > free:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, rule,
                            f"{frozen} of your tokens in {territory} sprang the Bene Tleilaxu trap and cannot leave "
                            f"it this turn; {free} may leave (BT-31, R-24).")
    if in_storm(state, location):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_STORM,
                            f"{location_label(location)} is under the storm; tokens cannot leave it.")


def check_tokens(state: GameState, faction: Faction, location: str, tokens: int, rule: str) -> None:
    have = state.tokens_at(location, faction)
    if tokens > have:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule,
                            f"You have {counted(have, 'token')} in {location_label(location)}, not {tokens}.")


# --- shipment --------------------------------------------------------------------------------


def _rate(location: str) -> int:
    return STRONGHOLD_RATE if is_stronghold(territory_of(location)) else ELSEWHERE_RATE


def _half(cost: int) -> int:
    return -(-cost // 2)  # half, rounded up


def shipment_cost(tokens: int, rate: int, half_price: bool) -> int:
    """1979 rules: `rate` spice a token (STRONGHOLD_RATE into a stronghold, ELSEWHERE_RATE elsewhere); the Guild
    and its allies pay half, rounded up (A-23, A-26). The one reckoning of a shipment's cost: the handlers' and,
    from a SHIPMENT prompt's detail, the menus'."""
    return _half(tokens * rate) if half_price else tokens * rate


def ship_back_cost(tokens: int) -> int:
    """A-23: the Guild ship tokens back to reserves for 1 spice per 2 tokens, rounded up."""
    return _half(tokens)


def _shipment_destinations(state: GameState, faction: Faction) -> list[str]:
    index = board_index()
    allowed = set(load_game_data().board.fremen_shipping_territories) if faction == FREMEN else None
    full = full_strongholds(state, faction)
    return [loc for loc, territory in index.territory.items()  # in board order
            if (allowed is None or territory in allowed)
            and index.sector[loc] != state.storm_sector and territory not in full]  # not under the storm


def _cross_sources(state: GameState, faction: Faction) -> list[str]:
    """A-23: where the Guild may ship from (territory to territory, or back to reserves)."""
    if faction != GUILD or Advantage.CROSS_SHIPPING in state.current_movement().cancelled:
        return []
    held = [loc for loc, here in state.forces.items() if faction in here]
    return board_order(loc for loc in held if can_leave(state, faction, loc))


@details_for(PromptKind.SHIPMENT)
class ShipmentDetails(Details):
    """The menus' facts: each destination's rate, the shipper's spice, what is closed (`open_shipment_prompt`)."""

    reserves: int
    free: bool
    stronghold_rate: int
    elsewhere_rate: int
    half_price: bool
    ship_from: list[str]
    tokens_at: dict[str, int]
    allies: list[Faction]
    strongholds: list[str]
    full_strongholds: list[str]
    spice: int
    impaired: bool


@details_for(PromptKind.SPIRITUAL_ADVISOR)
class SpiritualAdvisorDetails(Details):
    shipper: Faction
    to_location: str
    shipment_location: str | None  # with the shipment, as an advisor; None when not offered


def open_shipment_prompt(state: GameState, faction: Faction) -> None:
    fs = state.faction(faction)
    sources = _cross_sources(state, faction)
    if not fs.reserves and not sources:
        return
    half = (faction == GUILD and Advantage.HALF_PRICE_SHIPPING not in state.current_movement().cancelled) or (
        GUILD in state.ally_of(faction))
    destinations = _shipment_destinations(state, faction)
    # The menus' facts: each destination's rate (`strongholds` take stronghold_rate, the rest elsewhere_rate; the
    # cost is `shipment_cost`), the shipper's spice, what is closed and why (the storm's sector is public).
    open_prompt(
        state, PromptKind.SHIPMENT, faction, secret=False, options=destinations,
        reserves=fs.reserves, free=faction == FREMEN,
        stronghold_rate=0 if faction == FREMEN else STRONGHOLD_RATE,
        elsewhere_rate=0 if faction == FREMEN else ELSEWHERE_RATE,
        half_price=half and faction != FREMEN, ship_from=sources,
        tokens_at={loc: movable_tokens(state, faction, loc) for loc in sources},
        allies=[f.value for f in state.ally_of(faction)],
        strongholds=[loc for loc in destinations if is_stronghold(territory_of(loc))],
        full_strongholds=sorted(full_strongholds(state, faction)), spice=fs.spice,
        impaired=is_impaired(state, faction, NO_SHIPPING),
    )


def _check_destination(state: GameState, faction: Faction, where: str, rule: str) -> str:
    location = resolve_location(where, rule)
    if in_storm(state, location):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_STORM,
                            f"{location_label(location)} is under the storm (sector {state.storm_sector}); "
                            "nothing may be shipped there.")
    territory = territory_of(location)
    if stronghold_full(state, faction, territory):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_SHIP,
                            f"{territory} already holds tokens of two other factions.")
    return location


def _paying_ally(state: GameState, action: Ship) -> Faction | None:
    """A-8: allies may pay for each other's shipments. Which ally pays (checked); None when none does."""
    if not action.ally_pays:
        return None
    allies = state.ally_of(action.faction)
    if not allies:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-8", "You have no ally to pay for your shipment.")
    ally = action.ally if action.ally is not None else (allies[0] if len(allies) == 1 else None)
    if ally is None or ally not in allies:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-8", "Name the ally who pays for your shipment.",
                            [f.value for f in allies])
    return ally


def _payment_problem(state: GameState, faction: Faction, cost: int, ally: Faction | None, ally_pays: int) -> str:
    """Why the payment cannot be made, or "" (the ally's spice stays secret)."""
    if ally_pays > cost:
        return f"Your ally cannot pay {ally_pays} of a shipment costing {cost} spice."
    if ally is not None and ally_pays > state.faction(ally).spice:
        return f"{faction_does(ally, 'do', start=True)} not have {ally_pays} spice to pay toward your shipment."
    own, have = cost - ally_pays, state.faction(faction).spice
    if own > have:
        share = f" (your share: {own})" if ally_pays else ""
        return f"This shipment costs {cost} spice{share}; you have {have}."
    return ""


def _check_payment(state: GameState, faction: Faction, cost: int, ally: Faction | None, ally_pays: int,
                   rule: str) -> None:
    problem = _payment_problem(state, faction, cost, ally, ally_pays)
    if problem:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, rule, problem)


def _pay_shipment(state: GameState, faction: Faction, cost: int, ally: Faction | None, ally_pays: int,
                  log: EventLog) -> str:
    """1979 rules: shipments are paid to the Guild unless the Guild ships (or a Karama cancels the payment,
    A-14), else to the bank. A Guild paying for its ally pays the bank. Returns the words for the event."""
    if not cost:
        return "at no cost"
    payers = [(faction, cost - ally_pays)] + ([(ally, ally_pays)] if ally is not None and ally_pays else [])
    to_guild = state.in_game(GUILD) and faction != GUILD and any(p != GUILD for p, _ in payers)
    to_guild = to_guild and not karama_cancels(state, Advantage.SHIPMENT_PAYMENTS, log)
    for payer, amount in payers:
        if amount:
            pay(state, payer, amount, GUILD if to_guild and payer != GUILD else None, RULE_SHIP, "This shipment")
    words = f"for {cost} spice, paid to " + ("the Spacing Guild" if to_guild else "the bank")
    if ally is not None and ally_pays:
        words += f" ({faction_does(ally, 'pay')} {ally_pays} of it, A-8)"
    return words


def _karama_reopens(state: GameState, faction: Faction, message: str, log: EventLog) -> None:
    """A Karama cancelled the advantage this shipment needed (A-14): nothing was done; the faction decides
    again (the shipment prompt reopens, without the cancelled advantage)."""
    log.public(EventType.ACTION_CANCELLED, message, faction=faction.value)
    open_shipment_prompt(state, faction)


@handles(Ship)
def ship(state: GameState, action: Ship, log: EventLog) -> None:
    faction = action.faction
    take_prompt(state, faction, PromptKind.SHIPMENT, RULE_SHIP)
    check_not_impaired(state, faction, "no_shipping")  # every kind of shipment
    if action.from_location is not None:
        _cross_ship(state, action, action.from_location, log)
    elif faction == FREMEN:
        _fremen_ship(state, action, log)
    else:
        _ship_from_reserves(state, action, log)


def _check_reserves(state: GameState, faction: Faction, tokens: int) -> None:
    have = state.faction(faction).reserves
    if tokens > have:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE_SHIP,
                            f"You have {counted(have, 'token')} in reserve, not {tokens}.")


def _cost_after_half_price_karama(state: GameState, faction: Faction, cost: int, base: int, ally: Faction | None,
                                  ally_pays: int, log: EventLog) -> int | None:
    """A-14: a readied Karama makes the Guild pay full price. If it then cannot pay, the shipment is not made
    (the Karama is spent) and the Guild decides again: None."""
    if not karama_cancels(state, Advantage.HALF_PRICE_SHIPPING, log):
        return cost
    state.current_movement().cancelled.append(Advantage.HALF_PRICE_SHIPPING)
    if _payment_problem(state, faction, base, ally, ally_pays):
        _karama_reopens(state, faction, f"The Spacing Guild cannot pay the full {base} spice for that shipment: it "
                        "was not made, and they decide again.", log)
        return None
    return base


def _ship_from_reserves(state: GameState, action: Ship, log: EventLog) -> None:
    """From reserves: 1 spice a token into a stronghold, 2 elsewhere; the Guild (A-23) and its allies
    (A-26) pay half, rounded up."""
    faction, m = action.faction, state.current_movement()
    _check_reserves(state, faction, action.tokens)
    location = _check_destination(state, faction, action.to_location, RULE_SHIP)
    if shipment_stopped(state, faction, log):  # the Guild's special Karama; the shipment is spent
        return
    ally = _paying_ally(state, action)
    base = shipment_cost(action.tokens, _rate(location), half_price=False)
    guild_half = faction == GUILD and Advantage.HALF_PRICE_SHIPPING not in m.cancelled
    cost = shipment_cost(action.tokens, _rate(location), guild_half or GUILD in state.ally_of(faction))
    _check_payment(state, faction, cost, ally, action.ally_pays, RULE_SHIP)
    if guild_half:
        after_karama = _cost_after_half_price_karama(state, faction, cost, base, ally, action.ally_pays, log)
        if after_karama is None:
            return
        cost = after_karama
    words = _pay_shipment(state, faction, cost, ally, action.ally_pays, log)
    from_reserves(state, faction, location, action.tokens, log)
    log.public(EventType.SHIPPED, f"{faction_does(faction, 'ship', start=True)}"
                          f" {counted(action.tokens, 'token')} "
               f"to {location_label(location)} {words}.", faction=faction.value, to_location=location,
               tokens=action.tokens, cost=cost)
    _offer_advisor(state, faction, location, log)


def _fremen_ship(state: GameState, action: Ship, log: EventLog) -> None:
    """1979 rules (Fremen, A-22): no shipping from off-planet; any number of reserve tokens come free to
    The Great Flat or a territory near it (data: board fremen_shipping_territories)."""
    rule = "1979 rules: Shipment (Fremen)"
    faction = action.faction
    _check_reserves(state, faction, action.tokens)
    board = load_game_data().board
    location = resolve_location(action.to_location, rule)
    if territory_of(location) not in board.fremen_shipping_territories:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule,
                            "The Fremen bring their tokens only to The Great Flat or a territory near it, "
                            f"not {territory_of(location)}.", list(board.fremen_shipping_territories))
    location = _check_destination(state, faction, location, rule)
    if action.ally_pays:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, rule, "The Fremen bring their tokens at no cost.")
    from_reserves(state, faction, location, action.tokens, log)
    log.public(EventType.SHIPPED, f"The Fremen bring {counted(action.tokens, 'token')} to "
               f"{location_label(location)} at no cost.", faction=faction.value, to_location=location,
               tokens=action.tokens, cost=0)


def _check_guild_power(state: GameState, faction: Faction, what: str) -> None:
    if faction != GUILD:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-23", f"Only the Spacing Guild may {what}.")
    if Advantage.CROSS_SHIPPING in state.current_movement().cancelled:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-14",
                            f"A Karama cancelled your shipping from the board this turn; you may not {what}.")


def _cross_ship(state: GameState, action: Ship, from_location: str, log: EventLog) -> None:
    """A-23: the Guild ships territory to territory at the destination's rate, halved (rounded up)."""
    faction, m = action.faction, state.current_movement()
    _check_guild_power(state, faction, "ship from one territory to another")
    source = resolve_location(from_location, "A-23")
    check_tokens(state, faction, source, action.tokens, "A-23")
    check_can_leave(state, faction, source, action.tokens, "R-24")
    location = _check_destination(state, faction, action.to_location, "A-23")
    if territory_of(location) == territory_of(source):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-23", "Ship to another territory; inside "
                            f"{territory_of(source)} tokens move with the movement instead.")
    ally = _paying_ally(state, action)
    base = shipment_cost(action.tokens, _rate(location), half_price=False)
    half = Advantage.HALF_PRICE_SHIPPING not in m.cancelled
    cost = shipment_cost(action.tokens, _rate(location), half)
    _check_payment(state, faction, cost, ally, action.ally_pays, "A-23")
    if karama_cancels(state, Advantage.CROSS_SHIPPING, log):
        m.cancelled.append(Advantage.CROSS_SHIPPING)
        _karama_reopens(state, faction, "The Spacing Guild's shipment from the board was not made; they decide "
                        "again.", log)
        return
    if half:
        after_karama = _cost_after_half_price_karama(state, faction, cost, base, ally, action.ally_pays, log)
        if after_karama is None:
            return
        cost = after_karama
    words = _pay_shipment(state, faction, cost, ally, action.ally_pays, log)
    tokens_leave(state, territory_of(source), faction)  # betrayed tokens shipping out end the BT's wait
    move_tokens(state, faction, {source: action.tokens}, location, log)
    log.public(EventType.SHIPPED, f"The Spacing Guild ships {counted(action.tokens, 'token')} from "
               f"{location_label(source)} to {location_label(location)} {words} (A-23).", faction=faction.value,
               from_location=source, to_location=location, tokens=action.tokens, cost=cost)


@handles(ShipToReserves)
def ship_to_reserves(state: GameState, action: ShipToReserves, log: EventLog) -> None:
    """A-23: the Guild ships tokens back to its reserves for 1 spice per 2 tokens, rounded up, to the bank."""
    faction = action.faction
    take_prompt(state, faction, PromptKind.SHIPMENT, RULE_SHIP)
    check_not_impaired(state, faction, "no_shipping")  # shipping back is a shipment
    _check_guild_power(state, faction, "ship tokens back to reserves")
    source = resolve_location(action.from_location, "A-23")
    check_tokens(state, faction, source, action.tokens, "A-23")
    check_can_leave(state, faction, source, action.tokens, "R-24")
    cost = ship_back_cost(action.tokens)
    _check_payment(state, faction, cost, None, 0, "A-23")
    if karama_cancels(state, Advantage.CROSS_SHIPPING, log):
        state.current_movement().cancelled.append(Advantage.CROSS_SHIPPING)
        _karama_reopens(state, faction, "The Spacing Guild's shipment back to reserves was not made; they decide "
                        "again.", log)
        return
    pay(state, faction, cost, None, "A-23", "This shipment")
    tokens_leave(state, territory_of(source), faction)
    to_reserves(state, faction, source, action.tokens)
    log.public(EventType.SHIPPED_BACK, f"The Spacing Guild ships {counted(action.tokens, 'token')} "
               f"from {location_label(source)} back to its reserves for {cost} spice, paid to the bank (A-23).",
               faction=faction.value, from_location=source, tokens=action.tokens, cost=cost)


@handles(SkipShipment)
def skip_shipment(state: GameState, action: SkipShipment, log: EventLog) -> None:
    """Ship nothing; `no_move` waives the faction's move in this same turn too (engine/phases/movement.py
    answers it when it is asked). Shipments and moves are public: the table reads each answer as it comes."""
    take_prompt(state, action.faction, PromptKind.SHIPMENT, RULE_SHIP)
    state.current_movement().no_move = action.no_move
    log.public(EventType.SHIPMENT_SKIPPED, f"{faction_does(action.faction, 'do', start=True)} not ship this turn.",
               faction=action.faction.value)


# --- the Bene Gesserit spiritual advisor -----------------------------------------------------


def _offer_advisor(state: GameState, shipper: Faction, shipped_to: str, log: EventLog) -> None:
    """1979 rules (Bene Gesserit): whenever another faction ships from off-planet, the BG may put one token
    from their reserves in the Polar Sink for free. (The Fremen do not ship from off-planet.) With
    `character_advantages` (A-15, engine/factions/coexistence.py) they may instead send it with the shipment, as an
    advisor (factions.json: "may instead"): the Polar Sink stays their choice."""
    if shipper in (BG, FREMEN) or not state.in_game(BG) or not state.faction(BG).reserves:
        return
    with_host = state.setup.options.character_advantages
    options = [ACCEPT, WITH_SHIPMENT, DECLINE] if with_host else [ACCEPT, DECLINE]
    open_prompt(state, PromptKind.SPIRITUAL_ADVISOR, BG, secret=False, options=options, shipper=shipper.value,
                to_location=POLAR_SINK, shipment_location=shipped_to if with_host else None)
    _answer_advisor_by_order(state, log)


@handles(SetAdvisorOrder)
def set_advisor_order(state: GameState, action: SetAdvisorOrder, log: EventLog) -> None:
    """A secret standing order of the Bene Gesserit, changed at any time: every advisor to the Polar Sink, or
    none, answered as soon as the decision opens (this one too, if it is open); "ask" clears it."""
    if action.faction != BG:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_ADVISOR, "Only the Bene Gesserit send spiritual "
                            "advisors.")
    state.faction(BG).advisor_order = action.order
    words = {"polar_sink": "Your standing order: whenever another faction ships from off-planet, you send a "
                           "spiritual advisor to the Polar Sink, until you change it.",
             "never": "Your standing order: you send no spiritual advisor, until you change it.",
             "ask": "Your standing order is cleared: you will be asked about each spiritual advisor."}
    log.private(EventType.ADVISOR_ORDER_SET, BG, words[action.order], order=action.order)
    _answer_advisor_by_order(state, log)


def _answer_advisor_by_order(state: GameState, log: EventLog) -> None:
    """The standing order answers the Bene Gesserit's open advisor decision as a click on "to the Polar Sink" or
    on "no advisor" would: the same public words (a Karama readied against the advisor cancels it alike); only
    the Bene Gesserit read that the order answered."""
    prompt = state.prompt_of(BG, PromptKind.SPIRITUAL_ADVISOR)
    if prompt is None or state.faction(BG).advisor_order == "ask":
        return
    take_prompt(state, BG, PromptKind.SPIRITUAL_ADVISOR, RULE_ADVISOR)
    action = SendAdvisor(faction=BG, accept=state.faction(BG).advisor_order == "polar_sink")
    log.private(EventType.ADVISOR_BY_ORDER, BG, f"{BY_STANDING_ORDER}, you send a spiritual advisor to the Polar Sink."
                if action.accept else f"{BY_STANDING_ORDER}, you send no spiritual advisor.", accept=action.accept)
    _send(state, prompt, action, log)


@handles(SendAdvisor)
def send_advisor(state: GameState, action: SendAdvisor, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.SPIRITUAL_ADVISOR, RULE_ADVISOR)
    _send(state, prompt, action, log)


def _send(state: GameState, prompt: Prompt, action: SendAdvisor, log: EventLog) -> None:
    """The advisor decision's answer, checked and carried out."""
    if not action.accept:
        log.public(EventType.ADVISOR_DECLINED, "The Bene Gesserit send no spiritual advisor.", faction=BG.value)
        return
    if action.with_shipment and prompt.detail.get("shipment_location") is None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-15", "An advisor goes with the shipment only with the "
                            "character advantages (option character_advantages), which are off in this game; it "
                            "goes to the Polar Sink.", [ACCEPT, DECLINE])
    if not state.faction(BG).reserves:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_ADVISOR, "You have no tokens in reserve.")
    if karama_cancels(state, Advantage.SPIRITUAL_ADVISOR, log):
        return
    if action.with_shipment:  # with the shipment, co-existing (not on the board: nothing springs)
        location = prompt.detail["shipment_location"]
        state.faction(BG).reserves -= 1
        state.bg_advisors[location] = state.bg_advisors.get(location, 0) + 1
        log.public(EventType.ADVISOR_SENT, f"The Bene Gesserit send a spiritual advisor with the shipment to "
                   f"{location_label(location)}; it co-exists there (A-15).", faction=BG.value, to_location=location,
                   advisor=True)
        return
    from_reserves(state, BG, POLAR_SINK, 1, log)
    log.public(EventType.ADVISOR_SENT,
               "The Bene Gesserit send a spiritual advisor to the Polar Sink.", faction=BG.value,
               to_location=POLAR_SINK)


# --- defaults and samples --------------------------------------------------------------------


@default_for(PromptKind.SHIPMENT)
def _default_shipment(state: GameState, prompt: Prompt) -> SkipShipment:
    return SkipShipment(faction=prompt.faction)


@default_for(PromptKind.SPIRITUAL_ADVISOR)
def _default_advisor(state: GameState, prompt: Prompt) -> SendAdvisor:
    return SendAdvisor(faction=prompt.faction, accept=False)


@sampler_for(PromptKind.SHIPMENT)
def _sample_shipment(state: GameState, prompt: Prompt, rng: Rng) -> Ship | ShipToReserves | SkipShipment:
    faction, detail = prompt.faction, prompt.detail
    skip = SkipShipment(faction=faction)
    roll = rng.below(12)
    if roll < 2:  # one time in six ship nothing, and half of those times move nothing either (one click)
        return SkipShipment(faction=faction, no_move=roll == 0)
    sources = detail["ship_from"]
    if sources and (not detail["reserves"] or rng.below(3) == 0):
        source = rng.choice(sources)
        tokens = 1 + rng.below(detail["tokens_at"][source])
        if rng.below(3) == 0 or not prompt.options:
            return ShipToReserves(faction=faction, from_location=source, tokens=tokens)
        return Ship(faction=faction, from_location=source, to_location=rng.choice(prompt.options), tokens=tokens)
    if not detail["reserves"] or not prompt.options:
        return skip
    to = rng.choice(prompt.options)
    most = min(detail["reserves"], 8)
    if not detail["free"]:  # what the shipper's own spice pays for (an automatic player knows its spice)
        per_two = 2 * _rate(to) if not detail["half_price"] else _rate(to)
        most = min(most, 2 * state.faction(faction).spice // per_two)
    if most < 1:
        return skip
    return Ship(faction=faction, to_location=to, tokens=1 + rng.below(most))


@sampler_for(PromptKind.SPIRITUAL_ADVISOR)
def _sample_advisor(state: GameState, prompt: Prompt, rng: Rng) -> SendAdvisor:
    """Half the time no advisor; else (A-15) to the Polar Sink or with the shipment, one in two."""
    accept, with_shipment = bool(rng.below(2)), WITH_SHIPMENT in prompt.options and not rng.below(2)
    return SendAdvisor(faction=prompt.faction, accept=accept, with_shipment=accept and with_shipment)
