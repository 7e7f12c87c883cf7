"""The spice blow (1979 rules VII; A-19, A-20, A-21, A-27, A-28): spice cards, Shai-Hulud, worm riding, the Nexus.

Cards are drawn from the top of `state.spice_deck` onto `state.spice_discard` until a territory card is drawn
(A-27: that card ends the blow even when its sector is in the storm and nothing is placed, A-19).
- Turn 1 (A-20): Shai-Hulud cards are set aside and shuffled back into the deck after the blow; no worm, no Nexus.
- After turn 1 (A-21): the first Shai-Hulud of the blow devours the territory of the topmost territory card in the
  spice discard pile: all spice there goes back to the bank and all tokens there to the tanks, except the Fremen's
  (immune unless a Karama cancels it, A-14). Worms strike only sand. Each further Shai-Hulud of the same blow
  devours nothing more. If the discard pile holds no territory card (right after a reshuffle) the worm devours
  nothing.
- The Fremen tokens left in the devoured territory may ride the worm (digest section 6, A-28): a public WORM_RIDE
  prompt right after the worm; they all go to one location (not in the storm, not a stronghold already holding two
  other factions, not a territory where a Fremen ally has tokens except the Polar Sink), or stay.
- When the deck is empty, the whole discard pile is shuffled into a new deck (state.rng).
- After a blow in which Shai-Hulud appeared (turn > 1), a Nexus (A-8, A-21): see engine/rules/alliances.py.
- Options (A-15): with `character_advantages` each further Shai-Hulud of a blow is placed by the Fremen in any sand
  territory, or nowhere (A-21, A-28: a public WORM_PLACEMENT decision; it devours like any worm); worms devour
  Bene Gesserit advisors too. With `double_spice_blow` (advanced rule XXI) a second blow follows onto discard pile
  B (`state.spice_discard_b`), a worm there devouring the territory on top of pile B; one Nexus after both. With
  `special_karama_powers` a Fremen Karama worm readied in advance strikes after the blows (A-14).
The Atreides' look at the spice deck is in engine/phases/movement.py.
"""

from __future__ import annotations

from engine.actions import PlaceWorm, RideWorm
from engine.data import SpiceCard, load_game_data, location_key
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.bt_impairments import NO_MOVING, check_not_impaired, is_impaired
from engine.factions.special_karama import FREMEN_WORM, spend_special_karama
from engine.flow import (
    Details,
    blocking_prompts,
    default_for,
    details_for,
    handles,
    open_prompt,
    runs_phase,
    sampler_for,
    take_prompt,
)
from engine.ids import Faction, TerritoryKind
from engine.model import GameState, Phase, Prompt, PromptKind, SpiceBlowState, required
from engine.names import counted, faction_name, location_label
from engine.phases.turn import end_phase
from engine.rng import Rng
from engine.rules.alliances import close_nexus, open_nexus
from engine.rules.board import factions_in_territory, in_storm, is_stronghold, locations_of, territory_of
from engine.rules.economy import place_spice, remove_spice
from engine.rules.forces import kill_advisors, move_tokens, wipe_out
from engine.rules.karama import Advantage, karama_cancels

DRAWING = "drawing"  # cards are drawn (state.spice_blow says onto which pile and whether a worm appeared)
KARAMA_WORM = "karama_worm"  # the blows are over: a Fremen special Karama worm may strike
CLOSING = "closing"  # then a Nexus if a worm appeared, else the phase ends
NEXUS = "nexus"  # the Nexus is open; it ends when every NEXUS prompt is closed
RIDE_RULE = "A-28"
POLAR_SINK = "Polar Sink"


@details_for(PromptKind.WORM_RIDE)
class WormRideDetails(Details):
    territory: str  # where Shai-Hulud appeared
    tokens: int  # the Fremen tokens that may ride
    from_locations: dict[str, int]
    impaired: bool  # a ride is a move, barred by a BT impairment


@details_for(PromptKind.WORM_PLACEMENT)
class WormPlacementDetails(Details):
    card: str  # the Shai-Hulud card the Fremen place


@runs_phase(Phase.SPICE_BLOW)
def run_spice_blow(state: GameState, log: EventLog) -> bool:
    if state.step == "":
        state.spice_blow = SpiceBlowState()
        state.step = DRAWING
        return True
    if state.step == DRAWING:
        if _draw_until_territory(state, log):
            _blow_over(state, log)
        return True
    if state.step == KARAMA_WORM:
        state.step = CLOSING
        fire_fremen_karama_worm(state, log)  # may wait on a worm ride
        return True
    if state.step == CLOSING:
        if state.current_spice_blow().worm_in_phase:
            state.step = NEXUS
            open_nexus(state, log)
        else:
            state.spice_blow = None
            end_phase(state, log)
        return True
    if state.step == NEXUS:
        close_nexus(state, log)
        state.spice_blow = None
        end_phase(state, log)
        return True
    return False


def _discard(state: GameState) -> list[str]:
    """The discard pile of the blow in progress: A (state.spice_discard) or, in a double blow, B (A-15)."""
    blow = state.spice_blow
    return state.spice_discard_b if blow is not None and blow.pile == 1 else state.spice_discard


def _blow_over(state: GameState, log: EventLog) -> None:
    """A territory card ended a blow: the second blow follows (A-15 `double_spice_blow`), else the phase ends
    (turn-1 worms shuffled back, A-20; a Fremen Karama worm, A-14; the Nexus if a worm appeared)."""
    blow = state.current_spice_blow()
    if state.setup.options.double_spice_blow and blow.pile == 0:
        blow.pile, blow.worm_in_blow = 1, False
        log.public(EventType.SECOND_SPICE_BLOW, "The second spice blow of the turn, onto discard pile B (A-15, double "
                   "spice blow).")
        return
    if blow.set_aside:
        state.spice_deck += blow.set_aside
        state.rng.shuffle(state.spice_deck)
        log.public(EventType.WORMS_SHUFFLED_BACK,
                   f"The {len(blow.set_aside)} Shai-Hulud card(s) set aside are shuffled back into the spice deck "
                   "(A-20).", cards=blow.set_aside)
        blow.set_aside = []
    state.step = KARAMA_WORM


def _max_draws() -> int:
    """A bound no blow reaches: every territory card is always in the deck or a discard pile, so a full pass
    through the deck, a reshuffle and a second full pass always meet one."""
    return 3 * len(load_game_data().spice_cards) + 3


def _draw_until_territory(state: GameState, log: EventLog) -> bool:
    """Draw until a territory card ends the blow (A-27): True; False while a worm ride or a worm placement
    needs the Fremen's answer (drawing goes on after it)."""
    data = load_game_data()
    blow = state.current_spice_blow()
    for _ in range(_max_draws()):
        card_id = _draw(state, log)
        if card_id is None:  # cannot happen with the full deck of data/cards.json; never wait on it
            log.public(EventType.SPICE_BLOW_STOPPED,
                       "The spice blow stops: the spice deck and its discard pile are empty.")
            return True
        card = data.spice_card(card_id)
        if not card.is_worm:
            _discard(state).append(card_id)
            _blow(state, card, log)
            return True
        if state.turn == 1:
            blow.set_aside.append(card_id)
            log.public(EventType.WORM_SET_ASIDE, "Shai-Hulud is drawn on turn 1: the card is set aside (A-20).",
                       card=card_id)
            continue
        first = not blow.worm_in_blow
        blow.worm_in_blow = blow.worm_in_phase = True
        if first:
            _devour(state, card_id, log)
        else:
            _discard(state).append(card_id)
            _further_worm(state, card_id, log)
        if blocking_prompts(state):  # the Fremen decide where the worm goes, or whether to ride it
            return False
    log.public(EventType.SPICE_BLOW_STOPPED, "The spice blow stops: no territory card could be drawn.")  # a safety net
    return True


def _draw(state: GameState, log: EventLog) -> str | None:
    """The top spice card; an empty deck is first refilled by shuffling the discard piles (None if no card at all).
    With a double blow both piles go back into the deck (the AH reading; GF9 keeps one card out)."""
    if not state.spice_deck:
        if not state.spice_discard and not state.spice_discard_b:
            return None
        state.spice_deck = state.spice_discard + state.spice_discard_b
        state.spice_discard, state.spice_discard_b = [], []
        state.rng.shuffle(state.spice_deck)
        log.public(EventType.SPICE_DECK_RESHUFFLED,
                   "The spice deck is empty: the discard pile is shuffled into a new deck.",
                   cards=len(state.spice_deck))
    return state.spice_deck.pop(0)


def _blow(state: GameState, card: SpiceCard, log: EventLog) -> None:
    """Place the card's spice, unless its sector is in the storm (A-19); the card is discarded either way."""
    assert card.territory is not None and card.sector is not None
    location = location_key(card.territory, card.sector)
    pile = {"pile": "B"} if state.spice_blow is not None and state.spice_blow.pile == 1 else {}
    if in_storm(state, location):
        log.public(EventType.SPICE_BLOW_IN_STORM,
                   f"Spice blow: {location_label(location)} lies in the storm; no spice is placed (A-19).",
                   card=card.id, location=location, amount=0, **pile)
        return
    place_spice(state, location, card.amount)
    log.public(EventType.SPICE_BLOW, f"Spice blow: {card.amount} spice in {location_label(location)}.",
               card=card.id, location=location, amount=card.amount, **pile)


def _top_territory(state: GameState) -> str | None:
    """The territory of the topmost territory card in the blow's spice discard pile (A-21; A-15: its own pile)."""
    data = load_game_data()
    for card_id in reversed(_discard(state)):
        card = data.spice_card(card_id)
        if not card.is_worm:
            return card.territory
    return None


def _devour(state: GameState, card_id: str, log: EventLog) -> None:
    """A-21: the first Shai-Hulud of the blow devours the territory of the top territory card of the discard."""
    territory = _top_territory(state)
    _discard(state).append(card_id)
    if territory is None:
        log.public(EventType.WORM_NOTHING,
                   "Shai-Hulud! No territory card lies in the spice discard pile, so the worm devours nothing (A-21).",
                   card=card_id)
        return
    if load_game_data().board.territory(territory).kind != TerritoryKind.SAND:
        log.public(EventType.WORM_NOTHING, f"Shai-Hulud! {territory} is not sand; the worm devours nothing (A-21).",
                   card=card_id, territory=territory)
        return
    log.public(EventType.WORM, f"Shai-Hulud! The worm devours {territory} (A-21).", card=card_id, territory=territory)
    devour_territory(state, territory, log)


def devour_territory(state: GameState, territory: str, log: EventLog) -> None:
    """A worm devours a sand territory: its spice and every token there but the Fremen's (immune unless a Karama
    cancels it, A-14), Bene Gesserit advisors included (A-15); the Fremen may then ride it (A-28)."""
    fremen_there = any(state.tokens_at(loc, Faction.FREMEN) for loc in locations_of(territory))
    immune = fremen_there and not karama_cancels(state, Advantage.WORM_IMMUNITY, log)
    for location in locations_of(territory):
        for faction in list(state.forces.get(location, {})):
            if faction == Faction.FREMEN and immune:
                continue
            lost = wipe_out(state, location, faction)
            log.public(EventType.WORM_LOSSES,
                       f"Shai-Hulud devours {counted(lost, faction_name(faction) + ' token')} in "
                       f"{location_label(location)}.", faction=faction.value, location=location, tokens=lost)
        advisors = kill_advisors(state, location)
        if advisors:
            log.public(EventType.WORM_LOSSES, f"Shai-Hulud devours {counted(advisors, 'Bene Gesserit advisor')} in "
                       f"{location_label(location)}.", faction=Faction.BENE_GESSERIT.value, location=location,
                       tokens=advisors, advisors=True)
        eaten = remove_spice(state, location)
        if eaten:
            log.public(EventType.WORM_SPICE, f"Shai-Hulud devours {eaten} spice in {location_label(location)}.",
                       location=location, spice=eaten)
    if immune:
        log.public(EventType.WORM_IMMUNITY, "The Fremen are immune to Shai-Hulud: their tokens are spared.")
        _offer_ride(state, territory, log)


# --- further worms: the Fremen place them (A-21, A-28, `character_advantages`) ----------------------------


def sand_territories() -> list[str]:
    board = load_game_data().board
    return [name for name, t in board.territories.items() if t.kind == TerritoryKind.SAND]


def _further_worm(state: GameState, card_id: str, log: EventLog) -> None:
    """A-21: a further Shai-Hulud of the blow devours nothing, unless (`character_advantages`) the Fremen place it
    in a sand territory of their choice (a public decision)."""
    if (state.setup.options.character_advantages and state.in_game(Faction.FREMEN)
            and not karama_cancels(state, Advantage.WORM_PLACEMENT, log)):
        open_prompt(state, PromptKind.WORM_PLACEMENT, Faction.FREMEN, secret=False, options=sand_territories(),
                    card=card_id)
        log.public(EventType.WORM_PLACEMENT_OFFERED,
                   "Shai-Hulud appears again in this blow: the Fremen place it in a sand "
                   "territory, or nowhere (A-21).", card=card_id)
        return
    log.public(EventType.WORM_AGAIN,
               "Shai-Hulud appears again in this blow; it devours nothing more (A-21).", card=card_id)


@handles(PlaceWorm)
def place_worm(state: GameState, action: PlaceWorm, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.WORM_PLACEMENT, "A-21")
    if action.territory is None:
        log.public(EventType.WORM_NOT_PLACED, "The Fremen place the worm nowhere; it devours nothing (A-21).",
                   card=prompt.detail["card"])
        return
    if action.territory not in prompt.options:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, "A-21",
                            f"The Fremen place Shai-Hulud in a sand territory, not {action.territory!r}.",
                            prompt.options)
    prey = any(state.forces.get(loc) or state.spice_on_board.get(loc) for loc in locations_of(action.territory))
    # what it devours is told next, one line a faction and the spice (devour_territory)
    log.public(EventType.WORM_PLACED, f"Shai-Hulud! The Fremen place the worm in {action.territory} (A-21, A-28)"
               + ("." if prey else ": there is nothing there for it to devour."), card=prompt.detail["card"],
               territory=action.territory)
    devour_territory(state, action.territory, log)


@default_for(PromptKind.WORM_PLACEMENT)
def _default_worm_placement(state: GameState, prompt: Prompt) -> PlaceWorm:
    """Nowhere: the worm devours nothing, as without the option."""
    return PlaceWorm(faction=prompt.faction)


@sampler_for(PromptKind.WORM_PLACEMENT)
def _sample_worm_placement(state: GameState, prompt: Prompt, rng: Rng) -> PlaceWorm:
    if rng.below(4) == 0:
        return PlaceWorm(faction=prompt.faction)
    return PlaceWorm(faction=prompt.faction, territory=rng.choice(prompt.options))


# --- the Fremen special Karama worm (A-14, `special_karama_powers`) ---------------------------------------


def fire_fremen_karama_worm(state: GameState, log: EventLog) -> None:
    """A readied Fremen special Karama (engine/factions/special_karama.py) sends a worm to its territory at the end of
    the
    first spice blow after turn 1; a Nexus follows as after any worm."""
    order = next((o for o in state.special_karama_orders if o.power == FREMEN_WORM), None)
    if order is None or state.turn == 1:
        return
    spend_special_karama(state, order, log)
    state.current_spice_blow().worm_in_phase = True
    log.public(EventType.KARAMA_WORM,
               f"The Fremen play Karama (special power, A-14): Shai-Hulud devours {order.territory}.",
               faction=Faction.FREMEN.value, card=order.card, territory=order.territory)
    devour_territory(state, required(order.territory, "the territory the Fremen named"), log)


# --- the Fremen ride the worm (A-28) ---------------------------------------------------------------


def riders(state: GameState, territory: str) -> dict[str, int]:
    """Fremen tokens that may ride: those in the devoured territory and not under the storm."""
    return {
        loc: n for loc in locations_of(territory)
        if (n := state.tokens_at(loc, Faction.FREMEN)) and not in_storm(state, loc)
    }


def ride_destinations(state: GameState, territory: str) -> list[str]:
    """Where the worm may carry the Fremen: any other territory's location that is not under the storm, not a
    stronghold already holding two other factions, and not a territory where a Fremen ally has tokens (allies
    share only the Polar Sink)."""
    allies = set(state.ally_of(Faction.FREMEN))
    legal: list[str] = []
    for location in load_game_data().board.all_locations():
        there = territory_of(location)
        if there == territory or in_storm(state, location):
            continue
        present = set(factions_in_territory(state, there)) - {Faction.FREMEN}
        if is_stronghold(there) and len(present) >= 2:
            continue
        if there != POLAR_SINK and present & allies:
            continue
        legal.append(location)
    return legal


def _offer_ride(state: GameState, territory: str, log: EventLog) -> None:
    riding = riders(state, territory)
    if not riding:
        return
    open_prompt(state, PromptKind.WORM_RIDE, Faction.FREMEN, secret=False,
                options=ride_destinations(state, territory),
                territory=territory, tokens=sum(riding.values()), from_locations=riding,
                impaired=is_impaired(state, Faction.FREMEN, NO_MOVING))  # a ride is a move
    log.public(EventType.WORM_RIDE_OFFERED,
               f"The Fremen may ride Shai-Hulud out of {territory} with {counted(sum(riding.values()), 'token')}, "
               "or stay.",
               territory=territory, tokens=sum(riding.values()))


@handles(RideWorm)
def ride_worm(state: GameState, action: RideWorm, log: EventLog) -> None:
    prompt = take_prompt(state, action.faction, PromptKind.WORM_RIDE, RIDE_RULE)
    territory = prompt.detail["territory"]
    if action.to_location is not None:
        check_not_impaired(state, action.faction, "no_moving")  # a worm ride is a move
    if action.to_location is None:
        log.public(EventType.WORM_RIDE_DECLINED, f"The Fremen stay in {territory}.", faction=action.faction.value)
        return
    legal = ride_destinations(state, territory)
    if action.to_location not in legal:
        raise RuleViolation(
            ViolationCode.ILLEGAL_CHOICE, RIDE_RULE,
            f"The worm cannot carry the Fremen to {action.to_location!r}: a ride goes to another territory, not "
            "into the storm, not into a stronghold holding two other factions, and not where an ally is.",
            legal,
        )
    riding = riders(state, territory)
    move_tokens(state, action.faction, riding, action.to_location, log)  # Fedaykin ride too
    ridden = sum(riding.values())
    log.public(
        EventType.WORM_RIDDEN,
        f"The Fremen ride Shai-Hulud: {counted(ridden, 'token')} {'goes' if ridden == 1 else 'go'} from {territory} "
        f"to {location_label(action.to_location)}.",
        faction=action.faction.value, from_locations=riding, to_location=action.to_location,
        tokens=ridden,
    )


@default_for(PromptKind.WORM_RIDE)
def _default_ride(state: GameState, prompt: Prompt) -> RideWorm:
    """Stay where they are."""
    return RideWorm(faction=prompt.faction)


@sampler_for(PromptKind.WORM_RIDE)
def _sample_ride(state: GameState, prompt: Prompt, rng: Rng) -> RideWorm:
    if not prompt.options or rng.below(2) == 0:
        return RideWorm(faction=prompt.faction)
    return RideWorm(faction=prompt.faction, to_location=rng.choice(prompt.options))
