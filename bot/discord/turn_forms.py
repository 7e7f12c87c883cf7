"""The forms of the turn's public decisions (bot/discord/form_core.py): a bid, revival, shipment and movement, the
starting placements, the worm, the spiritual advisor, the Guild's timing, the Nexus, Truthtrance and a captured
leader. Merged into prompt_forms.FORMS.

Built from the prompt alone (engine.flow.legal_choices): its options and details (`details_of`) say what is legal
now and what each choice costs, as the engine reckons it (a shipment's cost is engine/phases/shipment.py
`shipment_cost`, the same function the handler charges with; a revival's the prompt's `token_costs` and
`leader_costs`). Nothing here
reckons a rule; a choice the prompt does not make legal is not offered. Where a rule ties two parts together (the
tokens that may ship depend on the source and the destination), `refine` offers the later part again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bot.app.words import faction_words, where
from bot.discord.form_core import MAX_CHOICES, Amount, Choice, Field, Form, FormIncomplete, Shortcut
from engine.actions import (
    AcceptAlliance,
    Action,
    AnswerTruthtrance,
    Bid,
    BreakAlliance,
    BtAllyRevive,
    CaptureLeader,
    EndNexus,
    GuildTiming,
    Move,
    PassBid,
    PlaceStartingTokens,
    PlaceWorm,
    ProposeAlliance,
    Revive,
    RideWorm,
    SendAdvisor,
    SetBidOrder,
    SetCoexistence,
    Ship,
    ShipToReserves,
    SkipMove,
    SkipShipment,
)
from engine.data import load_game_data
from engine.factions.captives import KEEP, KILL, KILL_REWARD, RELEASE, LeaderCaptureDetails
from engine.flow import details_of
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from engine.names import counted, leader_name, option_name, pronouns
from engine.phases.bidding import BidDetails
from engine.phases.movement import LATER, NOW, GuildTimingDetails, MovementDetails
from engine.phases.revival import RevivalDetails
from engine.phases.setup import StartingPlacementDetails
from engine.phases.shipment import (
    ACCEPT,
    DECLINE,
    WITH_SHIPMENT,
    ShipmentDetails,
    SpiritualAdvisorDetails,
    ship_back_cost,
    shipment_cost,
)
from engine.phases.spice_blow import WormRideDetails
from engine.rules.alliances import NexusDetails
from engine.rules.board import territory_of
from engine.rules.cards import NO, YES

BID_RAISES = 4  # one-click bids: the lowest legal bid and the next three; any other amount is typed
NOTHING = "nothing"  # the one choice of a shipment or move with nothing to offer (an impairment, no spice)
RESERVES = "reserves"  # the shipment's source: the reserves; or its destination: back to them (the Guild, A-23)
KWISATZ_HADERACH = "kwisatz_haderach"  # the revival's leader part: the Kwisatz Haderach instead of a leader


def _single(prompt: Prompt, name: str, choices: list[Choice], build: Callable[[Faction, Any], Action],
            amount: Amount | None = None) -> Form:
    return Form(prompt, (Field(name, tuple(choices)),), lambda faction, values: build(faction, values[0]),
                amount=amount)


def _spice(cost: int) -> str:
    return "free" if cost == 0 else f"{cost} spice"


def _waiting(name: str, why: str) -> Field:
    """A part that cannot be chosen yet: its one entry says what to choose first (Submit refuses it)."""
    return Field(name, (Choice(why, None),), waiting=True)


def _settled(name: str, label: str) -> Field:
    """A part with nothing to choose (shipping nothing has no destination): its one entry, preselected."""
    return Field(name, (Choice(label, None),), default=0)


def _by_territory(locations: list[str]) -> dict[str, list[str]]:
    """Locations grouped by territory, in the order given (the engine's board order)."""
    grouped: dict[str, list[str]] = {}
    for location in locations:
        grouped.setdefault(territory_of(location), []).append(location)
    return grouped


def _sector_field(locations: list[str]) -> Field:
    return Field("Sector", tuple(Choice(where(loc), loc) for loc in locations), default=0 if len(locations) == 1
                 else None)


def _required(values: list[Any], *names: str) -> None:
    missing = [name for name, value in zip(names, values, strict=True) if value is None]
    if missing:
        raise FormIncomplete(f"Choose your {', '.join(m.lower() for m in missing)} first.")


# --- bidding (A-5, A-6) --------------------------------------------------------------------------------


PASS_THIS_TURN = "Pass on every card this turn"
BID_UP_TO = "Bid up to N for me"


def _bid(prompt: Prompt) -> Form:
    """Pass, or one click for the lowest legal bids; any other amount up to the bidder's spice in a modal. An
    ally's share (A-8) is offered by the slash command (the card says so). Beside them, the bidding orders of
    A-6 given from the card: pass on the rest of this turn's auction, or outbid by 1 up to a limit on this card
    (the order answers this bid at once; a standing order for every card is set with `/me orders`)."""
    d = details_of(prompt, BidDetails)
    low, high = d.min_bid, d.max_bid
    raises = [Choice(f"Bid {n}", n) for n in range(low, min(high, low + BID_RAISES - 1) + 1)]
    amount = (Amount("Your bid", low, high, lambda faction, n: Bid(faction=faction, amount=n))
              if high >= low + BID_RAISES else None)
    shortcuts = [Shortcut(PASS_THIS_TURN, lambda f: SetBidOrder(faction=f, auto_pass=True, lasts="this_turn"))]
    if high > low:  # with one legal amount, "up to" it is the plain bid beside it
        shortcuts.append(Shortcut(BID_UP_TO, amount=Amount(
            "Bid up to", low, high, lambda f, n: SetBidOrder(faction=f, max_bid=n, lasts="this_card"))))
    form = _single(prompt, "Bid", [Choice("Pass", None), *raises],
                   lambda f, v: PassBid(faction=f) if v is None else Bid(faction=f, amount=v), amount)
    return replace(form, shortcuts=tuple(shortcuts))


# --- revival (A-7, A-15, BT-60) ------------------------------------------------------------------------


def _revival(prompt: Prompt) -> Form:
    """How many tokens (each count with its cost), then which leader (each with his cost), only what the spice
    pays for; an ally of the BT names up to two leaders (BT-60)."""
    d = details_of(prompt, RevivalDetails)
    spice, costs = d.spice, list(d.token_costs)
    counts = [n for n, cost in enumerate(costs) if cost <= spice]
    leader_costs: dict[str, int] = dict(d.leader_costs)
    if d.kwisatz_haderach_cost is not None:
        leader_costs[KWISATZ_HADERACH] = d.kwisatz_haderach_cost
    two = d.max_leaders > 1
    free = min(d.free_tokens, counts[-1])
    names = (["Tokens"] if counts[-1] > 0 else []) + (["Leader", "Second leader"][:1 + two] if leader_costs else [])

    def leader_field(name: str, left: int, taken: Any) -> Field:
        none = "No second leader" if name == "Second leader" else "No leader"
        offered = [Choice(f"{_leader(leader)}: {_spice(cost)}", leader) for leader, cost in leader_costs.items()
                   if cost <= left and leader != taken and not (name == "Second leader" and leader == KWISATZ_HADERACH)]
        return Field(name, (Choice(none, None), *offered), default=0)

    def refine(values: list[Any]) -> tuple[Field, ...]:
        chosen = dict(zip(names, values, strict=True))
        count = chosen.get("Tokens")
        left = spice - costs[free if count is None else count]
        fields = []
        for name in names:
            if name == "Tokens":
                labels = ["No tokens" if n == 0 else f"{counted(n, 'token')}: {_spice(costs[n])}" for n in counts]
                fields.append(Field("Tokens", tuple(Choice(label, n) for label, n in zip(labels, counts, strict=True)),
                                    default=counts.index(free)))
            elif name == "Leader":
                fields.append(leader_field(name, left, None))
            else:
                first = chosen.get("Leader")
                cost = leader_costs.get(first, 0) if first is not None else 0
                fields.append(leader_field(name, left - cost, first))
        return tuple(fields)

    def build(faction: Faction, values: list[Any]) -> Action:
        chosen = dict(zip(names, values, strict=True))
        count = chosen.get("Tokens") or 0
        leaders = [leader for leader in (chosen.get("Leader"), chosen.get("Second leader")) if leader]
        if KWISATZ_HADERACH in leaders:
            return Revive(faction=faction, tokens=count, kwisatz_haderach=True)
        if len(leaders) == 2:  # BT-60
            return BtAllyRevive(faction=faction, tokens=count, leaders=leaders)
        return Revive(faction=faction, tokens=count, leader=leaders[0] if leaders else None)

    if not names:  # nothing revivable this turn (one elite token a turn, A-15): the answer is "nothing"
        return _single(prompt, "Revival", [Choice("Revive nothing", None)], lambda f, v: Revive(faction=f))
    return Form(prompt, refine([None] * len(names)), build, refine=refine)


def revival_leaders(prompt: Prompt) -> list[str]:
    """The leaders the reviver may bring back now and pay for (tokens aside)."""
    d = details_of(prompt, RevivalDetails)
    return [leader for leader, cost in d.leader_costs.items() if cost <= d.spice]


def _leader(leader: str) -> str:
    return "the Kwisatz Haderach" if leader == KWISATZ_HADERACH else leader_name(leader)


# --- shipment (1979 rules: Shipment) ------------------------------------------------------


def shipment_cost_of(prompt: Prompt, count: int, destination: str) -> int:
    """What shipping `count` tokens to `destination` (RESERVES: back to them) costs, at the engine's reckoning."""
    d = details_of(prompt, ShipmentDetails)
    if destination == RESERVES:
        return ship_back_cost(count)
    rate = d.stronghold_rate if destination in d.strongholds else d.elsewhere_rate
    return shipment_cost(count, rate, d.half_price)


def shipment_tokens(prompt: Prompt, source: str) -> int:
    """The tokens that may ship from `source` (RESERVES, or a place on the board the Guild ship from)."""
    d = details_of(prompt, ShipmentDetails)
    return d.reserves if source == RESERVES else d.tokens_at[source]


def shipment_destinations(prompt: Prompt, source: str) -> list[str]:
    """Where at least one token from `source` may ship and be paid for: the prompt's destinations (from the board,
    A-23: another territory's, or RESERVES)."""
    places = [loc for loc in prompt.options if source == RESERVES or territory_of(loc) != territory_of(source)]
    if source != RESERVES:
        places.append(RESERVES)
    spice = details_of(prompt, ShipmentDetails).spice
    return [loc for loc in places if shipment_cost_of(prompt, 1, loc) <= spice]


def shipment_sources(prompt: Prompt) -> list[str]:
    """RESERVES and, for the Guild, the places on the board, from which something may ship now."""
    d = details_of(prompt, ShipmentDetails)
    if d.impaired:  # BT-16
        return []
    sources = ([RESERVES] if d.reserves else []) + d.ship_from
    return [source for source in sources if shipment_destinations(prompt, source)]


# Both decisions of the faction's turn in one click: the move is answered "move nothing" when it is asked.
NO_SHIPMENT_NO_MOVE = Shortcut("Ship nothing, move nothing this turn", lambda f: SkipShipment(faction=f, no_move=True))
SHIP_NOTHING = Shortcut("Ship nothing", lambda f: SkipShipment(faction=f))
MOVE_NOTHING = Shortcut("Move nothing", lambda f: SkipMove(faction=f))


def _shipment(prompt: Prompt) -> Form:
    """From (the reserves; for the Guild, a place on the board), to (a territory, then its sector; for the Guild,
    back to the reserves), how many tokens, each count with its cost; or ship nothing. Only what the spice pays
    for, at the engine's `shipment_cost`."""
    spice = details_of(prompt, ShipmentDetails).spice

    def source_label(source: str) -> str:
        count = counted(shipment_tokens(prompt, source), "token")
        return f"Your reserves ({count})" if source == RESERVES else f"{where(source)} ({count})"

    sources = shipment_sources(prompt)
    if not sources:  # an impairment (BT-16), or nothing that the spice pays for: one button
        return replace(_single(prompt, "Shipment", [Choice("Ship nothing", NOTHING)],
                               lambda f, v: SkipShipment(faction=f)), shortcuts=(NO_SHIPMENT_NO_MOVE,))
    # Shipping nothing is a button beside the menus: one click, and the reserves alone need no choosing.
    first = Field("From", tuple(Choice(source_label(s), s) for s in sources))

    def refine(values: list[Any]) -> tuple[Field, ...]:
        source, territory = values[0], values[1]
        if source is None:
            return (first, _waiting("To", "Choose where from first"), _waiting("Sector", "Choose where to first"),
                    _waiting("Tokens", "Choose where to first"))
        places = shipment_destinations(prompt, source)
        grouped = _by_territory([loc for loc in places if loc != RESERVES])
        to = Field("To", (*([Choice("Back to your reserves", RESERVES)] if RESERVES in places else []),
                          *(Choice(name, name) for name in grouped)))
        if territory is None or (territory != RESERVES and territory not in grouped):
            return first, to, _waiting("Sector", "Choose where to first"), _waiting("Tokens", "Choose where to first")
        sector = _settled("Sector", "Your reserves") if territory == RESERVES else _sector_field(grouped[territory])
        target = RESERVES if territory == RESERVES else grouped[territory][0]  # one rate for a whole territory
        priced = [(n, shipment_cost_of(prompt, n, target)) for n in range(1, shipment_tokens(prompt, source) + 1)]
        return first, to, sector, Field("Tokens", tuple(Choice(f"{counted(n, 'token')}: {_spice(cost)}", n)
                                                        for n, cost in priced if cost <= spice))

    def build(faction: Faction, values: list[Any]) -> Action:
        source, territory, location, count = values
        _required([source, territory, count], "From", "To", "Tokens")
        if territory == RESERVES:
            return ShipToReserves(faction=faction, from_location=source, tokens=count)
        _required([location], "Sector")
        return Ship(faction=faction, to_location=location, tokens=count,
                    from_location=None if source == RESERVES else source)

    return Form(prompt, refine([None] * 4), build, refine=refine, shortcuts=(SHIP_NOTHING, NO_SHIPMENT_NO_MOVE))


# --- movement (1979 rules: Movement; A-15 co-existence, A-22) ---------------------------------------------


def movement_sources(prompt: Prompt) -> list[str]:
    """The places whose tokens may move now (none while an impairment bars moving, BT-16)."""
    return [] if details_of(prompt, MovementDetails).impaired else list(prompt.options)


def _movement(prompt: Prompt) -> Form:
    """From (a group that may move; for the Bene Gesserit, co-existence declared in a territory), to (a place in
    range: at once when every group's reach fits one menu, else a territory then its sector), how many tokens; or
    move nothing."""
    d = details_of(prompt, MovementDetails)
    moves = movement_sources(prompt)
    advisors, fighters = (d.coexist.advisors, d.coexist.fighters) if d.coexist is not None else ([], [])
    sources = (*(Choice(f"{where(loc)} ({counted(d.tokens[loc], 'token')})", loc) for loc in moves),
               *(Choice(f"Co-exist in {t}: your tokens there become advisors", ("advisors", t)) for t in advisors),
               *(Choice(f"Your advisors in {t} become fighters", ("fighters", t)) for t in fighters))
    if not sources:  # one button, saying why
        why = "a Bene Tleilaxu worthless card bars your moves (BT-16)" if d.impaired else "no group can move"
        return _single(prompt, "Movement", [Choice(f"Move nothing: {why}", NOTHING)],
                       lambda f, v: SkipMove(faction=f))
    first = Field("From", sources)  # moving nothing: a button beside the menus
    by_sector = not all(len(d.destinations[source]) <= MAX_CHOICES for source in moves)

    def refine(values: list[Any]) -> tuple[Field, ...]:
        source = values[0]
        later = ("To", "Sector", "Tokens") if by_sector else ("To", "Tokens")
        if source is None:
            return first, *(_waiting(name, "Choose where from first") for name in later)
        if not isinstance(source, str):  # co-existence: no destination
            return first, *(_settled(name, "Nowhere" if name == "To" else "None") for name in later)
        count = Field("Tokens", tuple(Choice(counted(n, "token"), n) for n in range(1, d.tokens[source] + 1)))
        if not by_sector:  # each place with its sector ("Imperial Basin (sector 8)") where the territory has several
            places = d.destinations[source]
            return first, Field("To", tuple(Choice(where(place), place) for place in places)), count
        grouped, territory = _by_territory(list(d.destinations[source])), values[1]
        sector = (_sector_field(grouped[territory]) if territory in grouped
                  else _waiting("Sector", "Choose where to first"))
        return first, Field("To", tuple(Choice(name, name) for name in grouped)), sector, count

    def build(faction: Faction, values: list[Any]) -> Action:
        source, location, count = values[0], values[-2], values[-1]
        if isinstance(source, tuple):  # declared now; the engine asks the movement again
            return SetCoexistence(faction=faction, territory=source[1], advisors=source[0] == "advisors")
        _required([source, location, count], "From", "Sector" if by_sector else "To", "Tokens")
        return Move(faction=faction, from_location=source, to_location=location, tokens=count)

    return Form(prompt, refine([None] * (4 if by_sector else 3)), build, refine=refine, shortcuts=(MOVE_NOTHING,))


# --- setup: the starting tokens a faction places itself ----------------------------------------------


SPLIT_PARTS = 8  # a split over more places than two windows of menus is placed in one place instead


def _starting_placement(prompt: Prompt) -> Form:
    """The Fremen split their tokens over their territories' sectors (each part offers what is left; the last
    part takes the rest, so the counts always add up); a faction placing anywhere (the Bene Gesserit, A-15) names
    a territory, then a sector. Untouched, the form places as the engine's default does."""
    board = load_game_data().board
    total = details_of(prompt, StartingPlacementDetails).tokens
    places = [loc for territory in prompt.options for loc in board.territory(territory).locations]
    default_place = board.default_location(prompt.options[0])
    if total > 1 and len(places) <= SPLIT_PARTS:
        order = [loc for loc in places if loc != default_place] + [default_place]  # the rest: the default place

        def refine(values: list[Any]) -> tuple[Field, ...]:
            left, fields = total, []
            for index, location in enumerate(order):
                if index == len(order) - 1:
                    fields.append(Field(where(location), (Choice(counted(left, "token"), left),), default=0))
                    break
                choices = tuple(Choice(counted(n, "token"), n) for n in range(left + 1))
                fields.append(Field(where(location), choices, default=0))
                left -= values[index] or 0
            return tuple(fields)

        def build_split(faction: Faction, values: list[Any]) -> Action:
            return PlaceStartingTokens(faction=faction, placement={loc: n for loc, n in zip(order, values, strict=True)
                                                                   if n})

        return Form(prompt, refine([None] * len(order)), build_split, refine=refine)

    territories = list(prompt.options)
    anywhere = "Polar Sink" if "Polar Sink" in territories else territories[0]  # the engine's default place

    def refine_one(values: list[Any]) -> tuple[Field, ...]:
        territory = values[0] if values[0] is not None else anywhere
        return (Field("Territory", tuple(Choice(t, t) for t in territories), default=territories.index(anywhere)),
                _sector_field(list(board.territory(territory).locations)))

    def build_one(faction: Faction, values: list[Any]) -> Action:
        _required([values[1]], "Sector")
        return PlaceStartingTokens(faction=faction, placement={values[1]: total})

    return Form(prompt, refine_one([None, None]), build_one, refine=refine_one)


# --- Shai-Hulud (A-21, A-28) ---------------------------------------------------------------------------


def ride_destinations(prompt: Prompt) -> list[str]:
    """Where the worm may carry the Fremen now (nowhere while an impairment bars moving, BT-16, R-17)."""
    return [] if details_of(prompt, WormRideDetails).impaired else list(prompt.options)


def _worm_ride(prompt: Prompt) -> Form:
    """Stay, or ride to a territory, then its sector."""
    stay = Choice(f"Stay in {details_of(prompt, WormRideDetails).territory}", None)
    grouped = _by_territory(ride_destinations(prompt))
    ride = Field("Ride to", (stay, *(Choice(name, name) for name in grouped)), default=0)
    if not grouped:
        return _single(prompt, "Ride", [stay], lambda f, v: RideWorm(faction=f))

    def refine(values: list[Any]) -> tuple[Field, ...]:
        territory = values[0]
        return ride, (_sector_field(grouped[territory]) if territory in grouped else _settled("Sector", "None"))

    def build(faction: Faction, values: list[Any]) -> Action:
        if values[0] is None:
            return RideWorm(faction=faction)
        _required([values[1]], "Sector")
        return RideWorm(faction=faction, to_location=values[1])

    return Form(prompt, refine([None, None]), build, refine=refine)


def _worm_placement(prompt: Prompt) -> Form:
    """Nowhere (preselected: the default), or a sand territory."""
    choices = (Choice("Nowhere: it devours nothing", None), *(Choice(t, t) for t in prompt.options))
    return Form(prompt, (Field("Place Shai-Hulud", choices, default=0),),
                lambda faction, values: PlaceWorm(faction=faction, territory=values[0]))


# --- the turn's other public decisions -----------------------------------------------------------------


def _spiritual_advisor(prompt: Prompt) -> Form:
    """engine/phases/shipment.py: each option of the decision in words, valued as its answer: to the Polar Sink,
    with the shipment as a co-existing advisor (A-15 `character_advantages`), or none."""
    d = details_of(prompt, SpiritualAdvisorDetails)
    answers = {ACCEPT: Choice(f"Send a token to {where(d.to_location)}", (True, False)),
               WITH_SHIPMENT: Choice(f"Send it with the shipment to {where(d.shipment_location or '')}, as a "
                                     "co-existing advisor", (True, True)),
               DECLINE: Choice("Send no advisor", (False, False))}
    return _single(prompt, "Spiritual advisor", [answers[option] for option in prompt.options],
                   lambda f, v: SendAdvisor(faction=f, accept=v[0], with_shipment=v[1]))


def _guild_timing(prompt: Prompt) -> Form:
    before = faction_words(details_of(prompt, GuildTimingDetails).before)
    labels = {NOW: f"Take our turn now, before the {before}", LATER: f"Wait: the {before} go on"}
    return _single(prompt, "Guild turn", [Choice(labels[o], o == NOW) for o in prompt.options],
                   lambda f, v: GuildTiming(faction=f, now=v))


def _nexus(prompt: Prompt) -> Form:
    """engine/rules/alliances.py `nexus_choices`: the offers that may be made and accepted now, breaking, being done."""
    d = details_of(prompt, NexusDetails)
    choices = [Choice(f"Propose an alliance to the {faction_words(f)}", ("propose", f)) for f in d.propose_to]
    choices += [Choice(f"Accept the offer of the {faction_words(f)}", ("accept", f)) for f in d.offers]
    if d.may_break:
        choices.append(Choice("Break your alliance", ("break", None)))
    choices.append(Choice("Done with this Nexus", ("done", None)))

    def build(faction: Faction, value: tuple[str, Faction | None]) -> Action:
        what, partner = value
        if what == "propose" and partner is not None:
            return ProposeAlliance(faction=faction, partner=partner)
        if what == "accept" and partner is not None:
            return AcceptAlliance(faction=faction, partner=partner)
        return BreakAlliance(faction=faction) if what == "break" else EndNexus(faction=faction)

    return _single(prompt, "Nexus", choices, build)


def _truthtrance(prompt: Prompt) -> Form:
    labels = {YES: "Yes", NO: "No"}
    return _single(prompt, "Answer", [Choice(labels.get(o, o), o) for o in prompt.options],
                   lambda f, v: AnswerTruthtrance(faction=f, answer=v))


def _leader_capture(prompt: Prompt) -> Form:
    captured = details_of(prompt, LeaderCaptureDetails).leader
    leader = option_name(captured)
    labels = {KEEP: f"Keep {leader}: {pronouns(captured).subject} leads for you",
              KILL: f"Kill {leader}: +{KILL_REWARD} spice",
              RELEASE: f"Let {leader} go home"}
    return _single(prompt, "Captured leader", [Choice(labels[o], o) for o in prompt.options],
                   lambda f, v: CaptureLeader(faction=f, choice=v))


TURN_FORMS: dict[PromptKind, Callable[[Prompt], Form]] = {
    PromptKind.BID: _bid,
    PromptKind.REVIVAL: _revival,
    PromptKind.SHIPMENT: _shipment,
    PromptKind.MOVEMENT: _movement,
    PromptKind.STARTING_PLACEMENT: _starting_placement,
    PromptKind.WORM_RIDE: _worm_ride,
    PromptKind.WORM_PLACEMENT: _worm_placement,
    PromptKind.SPIRITUAL_ADVISOR: _spiritual_advisor,
    PromptKind.GUILD_TIMING: _guild_timing,
    PromptKind.NEXUS: _nexus,
    PromptKind.TRUTHTRANCE: _truthtrance,
    PromptKind.LEADER_CAPTURE: _leader_capture,
}
