"""The movement round (1979 rules: Movement; A-7, A-8, A-22, A-23, A-26; BT-31, R-24).

Steps: "" (the Atreides look at the top spice card; revival prompts open, engine/phases/revival.py) ->
"revival" (every revival answered) -> "turns": in storm order (A-4) each faction with tokens ships once
(SHIPMENT prompt; a BG spiritual advisor may follow) and then moves once (MOVEMENT prompt); at the end of
its turn its tokens that share a territory with an ally's go to the tanks (A-8). All of it is public.

With `character_advantages` (A-15, 1979 optional rule XV) the Guild take their turn whenever they like: their
place in storm order is skipped and, before each other faction's turn, the Guild are asked (a public GUILD_TIMING
decision, asked whatever they hold, so it leaks nothing) whether they go now; having waited past everyone, they
go last. A Karama readied against it (A-14) keeps them in their storm-order place for the round. The Guild's
secret standing order "in storm order" (`SetGuildTimingOrder`) answers each such decision as it opens, as a click on
its default would (now once their storm-order place is reached, else later). The Bene Gesserit's movement decision
also opens for declaring co-existence (engine/factions/coexistence.py).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from engine.actions import GuildTiming, Move, SetCoexistence, SetGuildTimingOrder, SkipMove
from engine.data import POLAR_SINK, load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import BY_STANDING_ORDER, EventLog, EventType
from engine.factions.bt_control import tokens_leave
from engine.factions.bt_impairments import NO_MOVING, check_not_impaired, is_impaired
from engine.factions.coexistence import coexistence_in_play, declarable_territories, declare_coexistence
from engine.flow import (
    AskedAgainDetails,
    Details,
    ask_again,
    default_for,
    details_for,
    handles,
    open_prompt,
    runs_phase,
    sampler_for,
    take_prompt,
)
from engine.ids import Faction
from engine.model import GameState, MovementState, Phase, Prompt, PromptKind, required
from engine.names import counted, faction_does, faction_name, location_label, the_faction
from engine.phases.revival import open_revival_prompts
from engine.phases.shipment import (
    RULE_STORM,
    board_order,
    can_leave,
    check_can_leave,
    check_tokens,
    full_strongholds,
    movable_tokens,
    open_shipment_prompt,
    stronghold_full,
)
from engine.phases.turn import end_phase
from engine.rng import Rng
from engine.rules.board import (
    board_index,
    has_ornithopters,
    in_storm,
    locations_of,
    occupied_territories,
    resolve_location,
    territory_of,
    tokens_in_territory,
)
from engine.rules.forces import move_tokens, wipe_out
from engine.rules.karama import Advantage, karama_cancels
from engine.rules.order import storm_order

RULE_MOVE = "1979 rules: Movement"
REVIVAL_STEP = "revival"
TURNS_STEP = "turns"
SHIP, MOVE = "ship", "move"
NOW, LATER = "now", "later"  # the Guild's timing: take their turn now, or wait
NORMAL_RANGE, FREMEN_RANGE, ORNITHOPTER_RANGE = 1, 2, 3  # territories per move

FREMEN, GUILD, BG = Faction.FREMEN, Faction.GUILD, Faction.BENE_GESSERIT
GUILD_ASKED, BEGIN = "guild_asked", "begin"  # stages: the Guild are deciding; the slot's faction may begin


# --- the step runner -------------------------------------------------------------------------


class Coexistence(Details):
    """A-15: where the Bene Gesserit may declare co-existence now (a part of MovementDetails)."""

    advisors: list[str]
    fighters: list[str]


@details_for(PromptKind.MOVEMENT)
class MovementDetails(AskedAgainDetails):
    range: int
    destinations: dict[str, list[str]]  # each source's reach
    tokens: dict[str, int]  # each source's movable tokens
    ornithopters: bool
    impaired: bool  # BT-16
    coexist: Coexistence | None = None


@details_for(PromptKind.GUILD_TIMING)
class GuildTimingDetails(Details):
    before: Faction  # the faction about to take its turn


@runs_phase(Phase.MOVEMENT)
def run_movement(state: GameState, log: EventLog) -> bool:
    if state.step == "":
        _atreides_see_spice_deck(state, log)
        order = [f for f in storm_order(state) if load_game_data().factions[f].tokens_total]  # BT-1: no tokens
        state.movement = MovementState(order=order)
        state.step = REVIVAL_STEP
        open_revival_prompts(state, log)  # every faction revives before anyone ships
        return True
    if state.step == REVIVAL_STEP:
        state.step = TURNS_STEP
        order = state.current_movement().order
        log.public(EventType.SHIPMENT_ORDER, "Shipment and movement, in storm order: "
                   + ", ".join(faction_name(f) for f in order) + ".", order=[f.value for f in order])
        _guild_out_of_order_or_karama(state, log)
        return True
    if state.step == TURNS_STEP:
        return _turn_step(state, log)
    return False


def turn_faction(state: GameState) -> Faction | None:
    """Whose shipment-and-movement turn is in progress (the Guild's out of order, A-15), or None."""
    m = state.movement
    if m is None:
        return None
    if m.guild_turn:
        return GUILD
    return m.order[m.index] if m.index < len(m.order) else None


def _guild_out_of_order(state: GameState) -> bool:
    """A-15: the Guild's one turn is theirs to place this round, so their storm-order place is not theirs (whether
    they have had their turn already or not)."""
    m = state.current_movement()
    return state.setup.options.character_advantages and GUILD in m.order and not m.guild_in_order


def _guild_floats(state: GameState) -> bool:
    """A-15: the Guild's turn is theirs to place this round and they have not had it yet."""
    return _guild_out_of_order(state) and not state.current_movement().guild_done


def _guild_out_of_order_or_karama(state: GameState, log: EventLog) -> None:
    """A-14: a Karama readied against the Guild's out-of-order shipping fires as the round begins."""
    if _guild_floats(state) and karama_cancels(state, Advantage.OUT_OF_ORDER_SHIPPING, log):
        state.current_movement().guild_in_order = True


def _turn_step(state: GameState, log: EventLog) -> bool:
    m = state.current_movement()
    if m.stage in ("", BEGIN) and not m.guild_turn:
        if m.index < len(m.order) and m.order[m.index] == GUILD and _guild_out_of_order(state):
            m.index += 1  # the Guild's storm-order place is not theirs this round, taken turn or not
            return True
        if m.index >= len(m.order):
            if _guild_floats(state):  # they waited past everyone: they go last
                m.guild_turn = True
                log.public(EventType.GUILD_TURN, "The Spacing Guild takes its turn last (A-15).", faction=GUILD.value)
                return True
            state.movement = None
            log.public(EventType.MOVEMENT_OVER, "Shipment and movement are over.")
            end_phase(state, log)
            return True
        if m.stage == "" and _guild_floats(state):
            m.stage = GUILD_ASKED
            before = m.order[m.index]
            open_prompt(state, PromptKind.GUILD_TIMING, GUILD, secret=False, options=[NOW, LATER],
                        before=before.value)
            _answer_guild_timing_by_order(state, log)
            return True
        m.stage = ""
    faction = required(turn_faction(state), "a faction whose turn it is")
    if m.stage == "":
        m.turns_taken.append(faction)
        m.cancelled = []
        m.no_move = False
        m.stage = SHIP
        open_shipment_prompt(state, faction)  # not opened when there is nothing to ship
    elif m.stage == SHIP:
        m.stage = MOVE
        _open_movement_prompt(state, faction)  # not opened when nothing can move
        if m.no_move:
            _waive_move(state, faction, log)
    else:
        if m.extra_moves:  # Hajr (engine/rules/cards.py): one more move in this turn, under the same rules
            m.extra_moves -= 1
            _open_movement_prompt(state, faction)
            return True
        _allies_apart(state, faction, log)
        if m.guild_turn:
            m.guild_turn, m.guild_done = False, True
            m.stage = BEGIN  # the faction the Guild went before now takes its turn, without asking again
        else:
            m.index += 1
            m.stage = ""
    return True


def guild_timing_asked(state: GameState) -> bool:
    """Whether the Guild's "now or later" decision can occur in this game (A-15: `character_advantages`)."""
    return state.setup.options.character_advantages and state.in_game(GUILD)


@handles(SetGuildTimingOrder)
def set_guild_timing_order(state: GameState, action: SetGuildTimingOrder, log: EventLog) -> None:
    """A secret standing order of the Guild, changed at any time: "in storm order" answers every "now or later"
    decision as soon as it opens (this one too, if it is open); otherwise the Guild are asked."""
    if action.faction != GUILD or not guild_timing_asked(state):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-15", "Only the Spacing Guild chooses when to take its "
                            "turn, and only with the character advantages (option character_advantages).")
    state.faction(GUILD).guild_timing_in_storm_order = action.storm_order
    log.private(EventType.GUILD_TIMING_ORDER_SET, GUILD,
                "Your standing order: you take your turn in your storm-order place, without being asked, until you "
                "change it." if action.storm_order else "Your standing order is cleared: you will be asked before "
                "each turn whether you go now.", storm_order=action.storm_order)
    _answer_guild_timing_by_order(state, log)


def _answer_guild_timing_by_order(state: GameState, log: EventLog) -> None:
    """The standing order "in storm order" answers the Guild's open "now or later" decision as a click on its
    default would: the same public words; only the Guild read that the order answered."""
    prompt = state.prompt_of(GUILD, PromptKind.GUILD_TIMING)
    if prompt is None or not state.faction(GUILD).guild_timing_in_storm_order:
        return
    action = _default_guild_timing(state, prompt)
    take_prompt(state, GUILD, PromptKind.GUILD_TIMING, "A-15")
    before = faction_name(Faction(prompt.detail["before"]))
    log.private(EventType.GUILD_TIMING_BY_ORDER, GUILD, f"{BY_STANDING_ORDER} (storm order), you take your turn now, "
                f"before the {before}." if action.now else f"{BY_STANDING_ORDER} (storm order), you wait; the "
                f"{before} go on.", now=action.now)
    _record_guild_timing(state, prompt, action, log)


@handles(GuildTiming)
def guild_timing(state: GameState, action: GuildTiming, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.GUILD_TIMING, "A-15")
    _record_guild_timing(state, prompt, action, log)


def _record_guild_timing(state: GameState, prompt: Prompt, action: GuildTiming, log: EventLog) -> None:
    m = state.current_movement()
    before = Faction(prompt.detail["before"])
    if action.now:
        m.guild_turn, m.stage = True, ""
        log.public(EventType.GUILD_TURN, f"The Spacing Guild takes its turn now, before {the_faction(before)} (A-15).",
                   faction=GUILD.value, before=before.value)
    else:
        m.stage = BEGIN
        log.public(EventType.GUILD_WAITS, f"The Spacing Guild waits; {faction_does(before, 'go')} on (A-15).",
                   faction=GUILD.value, before=before.value)


@default_for(PromptKind.GUILD_TIMING)
def _default_guild_timing(state: GameState, prompt: Prompt) -> GuildTiming:
    """Storm order: now once the Guild's storm-order place is reached, else later."""
    m = state.current_movement()
    reached = m.order.index(GUILD) <= m.index
    return GuildTiming(faction=prompt.faction, now=reached)


@sampler_for(PromptKind.GUILD_TIMING)
def _sample_guild_timing(state: GameState, prompt: Prompt, rng: Rng) -> GuildTiming:
    return GuildTiming(faction=prompt.faction, now=rng.below(3) == 0)


def _atreides_see_spice_deck(state: GameState, log: EventLog) -> None:
    """1979 rules (Atreides): before anyone ships, the Atreides see the top card of the spice deck."""
    if not state.in_game(Faction.ATREIDES) or not state.spice_deck:
        return
    if karama_cancels(state, Advantage.SEE_SPICE_DECK, log):
        return
    card_id = state.spice_deck[0]
    card = load_game_data().spice_card(card_id)
    name = "Shai-Hulud" if card.is_worm else f"{card.territory} ({card.amount} spice)"
    log.private(EventType.SPICE_DECK_SEEN, Faction.ATREIDES, f"Prescience: the top card of the spice deck is {name}.",
                card=card_id)


def _allies_apart(state: GameState, faction: Faction, log: EventLog) -> None:
    """A-8 (GF9 wording, base-game digest §10/§13): at the end of its shipment and movement, a faction's
    tokens in a territory that also holds its ally's tokens go to the tanks; the Polar Sink excepted."""
    allies = state.ally_of(faction)
    if not allies:
        return
    for territory in occupied_territories(state, faction):
        if territory == POLAR_SINK or not any(tokens_in_territory(state, territory, a) for a in allies):
            continue
        lost = sum(wipe_out(state, loc, faction) for loc in locations_of(territory))
        log.public(EventType.ALLIES_APART, f"{faction_does(faction, 'end', start=True)}"
                                   f" their movement sharing {territory} with their ally: "
                   f"their {counted(lost, 'token')} there go to the tanks (A-8).",
                   faction=faction.value, territory=territory, tokens=lost)


# --- paths (A-22) --------------------------------------------------------------------------


def _distances(state: GameState, faction: Faction, start: str, limit: int | None = None,
               closed: set[str] | None = None) -> dict[str, int]:
    """Territories entered to reach each location from `start` (0 inside its own territory): a 0-1 search
    over the sector-level graph that never enters a location under the storm or a full stronghold (`closed`:
    full_strongholds, when the caller has them already). With a `limit` (a move's range) it stops there:
    locations further away are left out, which keeps a move fast."""
    if in_storm(state, start):
        return {}
    index = board_index()
    territory, links = index.territory, index.links
    storm = state.storm_sector
    if closed is None:
        closed = full_strongholds(state, faction)
    last = len(territory) if limit is None else limit  # no path enters more territories than there are places
    best = {start: 0}
    queue = deque([(0, start)])
    while queue:
        here_cost, here = queue.popleft()
        if here_cost > best[here]:
            continue  # reached more cheaply since it was queued
        here_territory = territory[here]
        for near, near_territory, near_sector in links[here]:
            if near_sector == storm:
                continue
            if near_territory == here_territory:  # free: another sector of the same territory
                if here_cost < best.get(near, here_cost + 1):
                    best[near] = here_cost
                    queue.appendleft((here_cost, near))
            elif here_cost < last and near_territory not in closed and here_cost + 1 < best.get(near, here_cost + 2):
                best[near] = here_cost + 1
                queue.append((here_cost + 1, near))
    return best


def reachable_locations(state: GameState, faction: Faction, from_location: str, distance: int,
                        closed: set[str] | None = None) -> set[str]:
    """Locations a group starting at `from_location` can reach entering at most `distance` territories
    (moving between sectors of one territory is free), never entering, leaving or crossing a sector under
    the storm (the Polar Sink never is) nor entering or crossing a stronghold holding two other factions."""
    return {loc for loc in _distances(state, faction, from_location, distance, closed) if loc != from_location}


def move_range(state: GameState, faction: Faction) -> int:
    """A-22: 1 territory; 3 with tokens in Arrakeen or Carthag at the start of the move (ornithopters);
    the Fremen 2 without ornithopters, 1 once a Karama cancelled that this turn (A-14)."""
    if has_ornithopters(state, faction):
        return ORNITHOPTER_RANGE
    if faction == FREMEN and Advantage.TWO_TERRITORY_MOVE not in state.current_movement().cancelled:
        return FREMEN_RANGE
    return NORMAL_RANGE


# --- movement --------------------------------------------------------------------------------


def _open_movement_prompt(state: GameState, faction: Faction) -> None:
    distance = move_range(state, faction)
    closed = full_strongholds(state, faction)  # the same for every group
    sources: dict[str, list[str]] = {}
    for loc in board_order(loc for loc, here in state.forces.items() if faction in here):
        if not can_leave(state, faction, loc):
            continue
        reach = reachable_locations(state, faction, loc, distance, closed)
        if reach:
            sources[loc] = board_order(reach)
    coexisting = faction == BG and coexistence_in_play(state) and (state.bg_advisors or occupied_territories(state, BG))
    if not sources and not coexisting:  # the Bene Gesserit may still declare co-existence
        return
    # Beyond the moves: why the range is what it is, an impairment (BT-16), and where the Bene Gesserit may
    # declare co-existence now: territories whose fighters may become advisors, and the reverse.
    extra: dict[str, Any] = dict(coexist={"advisors": declarable_territories(state, True),
                          "fighters": declarable_territories(state, False)}) if coexisting else {}
    open_prompt(state, PromptKind.MOVEMENT, faction, secret=False, options=list(sources), range=distance,
                destinations=sources, tokens={loc: movable_tokens(state, faction, loc) for loc in sources},
                ornithopters=has_ornithopters(state, faction), impaired=is_impaired(state, faction, NO_MOVING),
                **extra)


@handles(SetCoexistence)
def set_coexistence(state: GameState, action: SetCoexistence, log: EventLog) -> None:
    """A-15: declared in the Bene Gesserit's own turn (engine/factions/coexistence.py). Their open movement decision is
    asked again: the tokens that may move, and where they may co-exist, have changed."""
    declare_coexistence(state, action, log)
    for prompt in state.prompts_for(BG):
        if prompt.kind == PromptKind.MOVEMENT:
            ask_again(state, prompt, lambda: _open_movement_prompt(state, BG))


@handles(Move)
def move(state: GameState, action: Move, log: EventLog) -> None:
    """1979 rules: one group move, from one location to a location within range (A-22)."""
    faction = action.faction
    take_prompt(state, faction, PromptKind.MOVEMENT, RULE_MOVE)
    check_not_impaired(state, faction, "no_moving")
    source = resolve_location(action.from_location, RULE_MOVE)
    check_tokens(state, faction, source, action.tokens, RULE_MOVE)
    check_can_leave(state, faction, source, action.tokens, "BT-31")
    location = resolve_location(action.to_location, RULE_MOVE)
    if location == source:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE_MOVE, "The tokens must move somewhere else.")
    if in_storm(state, location):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_STORM,
                            f"{location_label(location)} is under the storm; no tokens may move into it.")
    if stronghold_full(state, faction, territory_of(location)):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE_MOVE,
                            f"{territory_of(location)} already holds tokens of two other factions.")
    ornithopters = has_ornithopters(state, faction)
    distance = move_range(state, faction)
    in_range = _distances(state, faction, source, distance)
    cost = in_range.get(location)
    if cost is None:
        away = _distances(state, faction, source).get(location)  # the whole board, for the message alone
        why = "cannot be reached" if away is None else f"is {away} territories away"
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "A-22",
                            f"{location_label(location)} {why}: you may move {distance} "
                            f"territor{'y' if distance == 1 else 'ies'}, around the storm and full strongholds.",
                            board_order(loc for loc in in_range if loc != source))
    fremen_power = faction == FREMEN and not ornithopters and cost > NORMAL_RANGE
    if fremen_power and karama_cancels(state, Advantage.TWO_TERRITORY_MOVE, log):
        state.current_movement().cancelled.append(Advantage.TWO_TERRITORY_MOVE)
        # the move is not made; the Fremen decide again with a range of one territory.
        log.public(EventType.ACTION_CANCELLED, "The Fremen move was not made; they may move one territory and decide "
                   "again.", faction=faction.value)
        _open_movement_prompt(state, faction)
        return
    tokens_leave(state, territory_of(source), faction)  # betrayed tokens moving out end the BT's wait
    move_tokens(state, faction, {source: action.tokens}, location, log)  # elites go along
    log.public(EventType.MOVED, f"{faction_does(faction, 'move', start=True)}"
                        f" {counted(action.tokens, 'token')} "
               f"from {location_label(source)} to {location_label(location)}.", faction=faction.value,
               from_location=source, to_location=location, tokens=action.tokens)


@handles(SkipMove)
def skip_move(state: GameState, action: SkipMove, log: EventLog) -> None:
    take_prompt(state, action.faction, PromptKind.MOVEMENT, RULE_MOVE)
    _record_no_move(action.faction, log)


def _record_no_move(faction: Faction, log: EventLog) -> None:
    log.public(EventType.MOVE_SKIPPED,
               f"{faction_does(faction, 'do', start=True)} not move this turn.", faction=faction.value)


def _waive_move(state: GameState, faction: Faction, log: EventLog) -> None:
    """The faction shipped nothing "and no move this turn": its move, asked now, is answered "move nothing" at
    once, as a click would answer it (nothing is asked when nothing could move). The decision is opened all the
    same, so the game runs as it would with the click; Hajr is not played in a turn without a move."""
    state.current_movement().no_move = False
    if state.prompt_of(faction, PromptKind.MOVEMENT) is not None:
        take_prompt(state, faction, PromptKind.MOVEMENT, RULE_MOVE)
        log.private(EventType.MOVE_BY_ORDER,
                    faction, f"{BY_STANDING_ORDER} for this turn (ship nothing, move nothing), "
                    "you do not move.")
        _record_no_move(faction, log)


# --- defaults and samples --------------------------------------------------------------------


@default_for(PromptKind.MOVEMENT)
def _default_move(state: GameState, prompt: Prompt) -> SkipMove:
    return SkipMove(faction=prompt.faction)


@sampler_for(PromptKind.MOVEMENT)
def _sample_move(state: GameState, prompt: Prompt, rng: Rng) -> Move | SkipMove:
    if rng.below(5) == 0 or not prompt.options:
        return SkipMove(faction=prompt.faction)
    source = rng.choice(prompt.options)
    return Move(faction=prompt.faction, from_location=source,
                to_location=rng.choice(prompt.detail["destinations"][source]),
                tokens=1 + rng.below(prompt.detail["tokens"][source]))
