"""Admin corrections: actions like any other, logged with who made them and why, shown to the table."""

from __future__ import annotations

from engine.actions import ForceDefault, MoveCard, PlaceTokens, SetLeader, SetSpice, SetStorm
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.bene_tleilaxu import tokens_lost
from engine.factions.elites import add_elites, elites_at, elites_in_reserves
from engine.flow import DEFAULTS, HANDLERS, handles
from engine.ids import Faction
from engine.model import GameState, required
from engine.names import card_name, faction_does, faction_name, faction_possessive, table_decision_name, the_faction
from engine.rules.board import territory_of

DEADLINE_ADMIN = "deadline"  # the admin name under which a front applies an expired decision's default
ABSENCE_ADMIN = "absence"  # ... and an absent player's default, in a game whose absences default (bot/app/absence.py)


@handles(ForceDefault)
def force_default(state: GameState, action: ForceDefault, log: EventLog) -> None:
    prompt = state.prompt(action.prompt_id)
    if prompt is None:
        raise RuleViolation(
            ViolationCode.NO_OPEN_DECISION, "Admin",
            f"There is no open decision {action.prompt_id!r}.", [p.id for p in state.prompts],
        )
    what = table_decision_name(prompt.kind)
    log.public(
        EventType.ADMIN_FORCED_DEFAULT,
        f"{faction_does(prompt.faction, 'did', start=True)} not answer before the deadline: the default applies to "
        f"{what}." if action.admin == DEADLINE_ADMIN
        else f"The {faction_name(prompt.faction)} player is away: the default applies to {what}."
        if action.admin == ABSENCE_ADMIN
        else f"Admin {action.admin} applied the default to {faction_possessive(prompt.faction)} decision, {what} "
        f"({action.reason}).",
        admin=action.admin, reason=action.reason, prompt=prompt.id, faction=prompt.faction.value,
    )
    default = DEFAULTS[prompt.kind](state, prompt)
    HANDLERS[default.type](state, default, log)


@handles(SetSpice)
def set_spice(state: GameState, action: SetSpice, log: EventLog) -> None:
    _check_in_game(state, action.faction)
    # Spice behind a shield is secret: the table learns of the correction, the faction learns the amount.
    fs = state.faction(action.faction)
    state.spice_outside_bank += action.amount - fs.spice  # the difference comes from or goes to the bank
    fs.spice = action.amount
    log.public(
        EventType.ADMIN_SET_SPICE,
        f"Admin {action.admin} corrected {faction_possessive(action.faction)} spice ({action.reason}).",
        admin=action.admin, reason=action.reason, faction=action.faction.value,
    )
    log.private(EventType.ADMIN_SET_SPICE_AMOUNT, action.faction,
                f"Your spice was set to {action.amount} by admin {action.admin}.", amount=action.amount)


OFF_BOARD = ("reserves", "tanks")


def _tokens_there(state: GameState, faction: Faction, where: str) -> int:
    fs = state.faction(faction)
    return fs.reserves if where == "reserves" else fs.tanks if where == "tanks" else state.tokens_at(where, faction)


def _take_tokens(state: GameState, faction: Faction, where: str, count: int) -> None:
    fs = state.faction(faction)
    have = _tokens_there(state, faction, where)
    if count > have:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "Admin",
                            f"{faction.value} has {have} tokens in {where}, not {count}.")
    if where == "reserves":
        fs.reserves -= count
    elif where == "tanks":
        fs.tanks -= count
    else:
        state.add_tokens(where, faction, -count)
        tokens_lost(state, where, faction)  # a trap never freezes more tokens than are there (BT-31)


def _put_tokens(state: GameState, faction: Faction, where: str, count: int) -> None:
    fs = state.faction(faction)
    if where == "reserves":
        fs.reserves += count
    elif where == "tanks":
        fs.tanks += count
    else:
        state.add_tokens(where, faction, count)  # a correction springs no trap: it restores what should be


def _check_place(where: str) -> None:
    if where not in OFF_BOARD:
        try:
            territory_of(where)
        except KeyError:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "Admin", f"There is no location {where!r} (write "
                                "'Territory#sector', 'Polar Sink', 'reserves' or 'tanks').") from None


def _elites_there(state: GameState, faction: Faction, where: str) -> int:
    if where == "reserves":
        return elites_in_reserves(state, faction)
    if where == "tanks":
        return state.faction(faction).elite_tanks
    return elites_at(state, where, faction)


def _shift_elites(state: GameState, faction: Faction, where: str, count: int) -> None:
    """Elites in the reserves are what is left of them (engine/factions/elites.py): only the tanks and the board
    count."""
    if where == "tanks":
        state.faction(faction).elite_tanks += count
    elif where != "reserves":
        add_elites(state, where, faction, count)


@handles(PlaceTokens)
def place_tokens(state: GameState, action: PlaceTokens, log: EventLog) -> None:
    _check_in_game(state, action.faction)
    for where in (action.source, action.destination):
        _check_place(where)
    # a correction moves regular tokens first; elites (Sardaukar, Fedaykin) only when it must, and with them
    elites_there = _elites_there(state, action.faction, action.source)
    _take_tokens(state, action.faction, action.source, action.tokens)
    elites = max(0, elites_there - _tokens_there(state, action.faction, action.source))
    _shift_elites(state, action.faction, action.source, -elites)
    _put_tokens(state, action.faction, action.destination, action.tokens)
    _shift_elites(state, action.faction, action.destination, elites)
    log.public(EventType.ADMIN_TOKENS,
               f"Admin {action.admin} moved {action.tokens} {faction_name(action.faction)} tokens "
               f"from {action.source} to {action.destination} ({action.reason}).", admin=action.admin,
               reason=action.reason, faction=action.faction.value)


@handles(MoveCard)
def move_card(state: GameState, action: MoveCard, log: EventLog) -> None:
    """The card leaves wherever it is: the deck, a discard pile, a hand, the auction's cards not yet up, a trap
    (which is then gone). Where it was stays secret, from the table and from the moderator alike: the
    announcement and any refusal read the same wherever it lay (issue 15: moderating blind)."""
    if action.to is not None:
        _check_in_game(state, action.to)
    try:
        load_game_data().card(action.card)
    except (KeyError, LookupError):
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "Admin", f"There is no card {action.card!r}.") from None
    waiting = state.bidding.cards[1 if state.bidding.card_open else 0:] if state.bidding is not None else []
    piles = [state.treachery_deck, state.treachery_discard, *(fs.hand for fs in state.factions.values()), waiting]
    holder = next((pile for pile in piles if action.card in pile), None)
    trap = next((s for s, t in state.traps.items() if t.card == action.card), None)
    if holder is None and trap is None:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "Admin",
                            f"{card_name(action.card)} cannot be moved now: it is out of the game or on the table "
                            "for everyone to see it resolve.")
    if holder is waiting:
        state.current_bidding().cards.remove(action.card)
    elif holder is not None:
        holder.remove(action.card)
    else:
        del state.traps[required(trap, "the trap holding the card")]  # not held, so in a trap (refused above)
    (state.faction(action.to).hand if action.to else state.treachery_discard).append(action.card)
    if action.to:
        log.private(EventType.ADMIN_CARD_GIVEN, action.to, f"Admin {action.admin} gave you {card_name(action.card)}.",
                    card=action.card)
        log.public(EventType.ADMIN_CARD, f"Admin {action.admin} gave {the_faction(action.to)} a Treachery card "
                   f"({action.reason}).", admin=action.admin, reason=action.reason, faction=action.to.value)
    else:
        log.public(EventType.ADMIN_CARD, f"Admin {action.admin} discarded {card_name(action.card)} ({action.reason}).",
                   admin=action.admin, reason=action.reason, card=action.card)


@handles(SetLeader)
def set_leader(state: GameState, action: SetLeader, log: EventLog) -> None:
    try:
        leader = load_game_data().leader(action.leader)
    except KeyError:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "Admin", f"There is no leader {action.leader!r}.") from None
    _check_in_game(state, leader.faction)
    dead = state.faction(leader.faction).leaders_in_tanks
    if action.alive == (leader.id not in dead):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, "Admin",
                            f"{leader.name} is already {'alive' if action.alive else 'in the tanks'}.")
    if action.alive:
        dead.remove(leader.id)
    else:
        dead.append(leader.id)
    log.public(EventType.ADMIN_LEADER, f"Admin {action.admin} {'revived' if action.alive else 'killed'} {leader.name} "
               f"({action.reason}).", admin=action.admin, reason=action.reason, leader=leader.id)


@handles(SetStorm)
def set_storm(state: GameState, action: SetStorm, log: EventLog) -> None:
    state.storm_sector = action.sector  # a correction: nothing is swept
    log.public(EventType.ADMIN_STORM,
               f"Admin {action.admin} set the storm to sector {action.sector} ({action.reason}).",
               admin=action.admin, reason=action.reason, sector=action.sector)


def _check_in_game(state: GameState, faction: Faction) -> None:
    if not state.in_game(faction):
        raise RuleViolation(ViolationCode.NOT_IN_GAME, "Admin", f"{faction.value} is not in this game.",
                            [f.value for f in state.factions])
