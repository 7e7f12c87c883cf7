"""The facts on the decision cards of the turn's decisions (bot/app/decision_cards.py): the storm dial and storm
cards, a bid, revival, shipment and movement, the starting placements, the worm, the spiritual advisor, the Guild's
timing, the Nexus, Truthtrance and a captured leader. Merged into decision_cards.FACTS.

Each is built from the decider's own view (what they may know) and the prompt (what the engine says is legal and
what it costs), in a few short lines.
"""

from __future__ import annotations

from bot.app.words import Facts, faction_words, where
from engine.factions.bt_spice import SPICE_WIN
from engine.factions.captives import LeaderCaptureDetails
from engine.flow import details_of
from engine.ids import Faction
from engine.model import Prompt, PromptKind
from engine.names import card_name, counted, listed, option_name, option_names, pronouns
from engine.phases.bidding import BidDetails
from engine.phases.movement import GuildTimingDetails, MovementDetails
from engine.phases.revival import BtAllyRevivalDetails, RevivalDetails
from engine.phases.setup import StartingPlacementDetails
from engine.phases.shipment import ShipmentDetails, SpiritualAdvisorDetails
from engine.phases.spice_blow import WormRideDetails
from engine.phases.storm import StormDialDetails
from engine.rules.alliances import NexusDetails
from engine.rules.cards import FAMILY_ATOMICS, HAJR, WEATHER_CONTROL, StormCardsDetails, TruthtranceDetails
from engine.rules.hands import hand_limit
from engine.secrecy.views import PlayerView


def _allies(allies: list[Faction]) -> str:
    return listed([f"the {faction_words(f)}" for f in allies])


def _own_groups(seen: PlayerView) -> str:
    me = seen.viewer
    groups = [f"{where(loc)} {n}" for loc, here in seen.forces.items() if me is not None and (n := here.get(me, 0))]
    return ", ".join(groups) or "none"


def _public(seen: PlayerView):
    return next(f for f in seen.factions if f.faction == seen.viewer)


# --- the storm (A-1, A-2) ----------------------------------------------------------------------------


def _storm_dial(seen: PlayerView, prompt: Prompt) -> list[str]:
    low, high = prompt.options[0], prompt.options[-1]
    d = details_of(prompt, StormDialDetails)
    if d.forecast:
        return [f"Dial {low} to {high} for the storm of turn {d.turn} (weather, A-15): the two "
                "dials' sum is how far it will move then; the Fremen alone learn the sum now."]
    start = "from the Storm Start Sector" if seen.turn == 1 else f"from sector {seen.storm_sector}"
    return [f"Dial {low} to {high}, in secret: the two dials' sum is how far the storm moves counterclockwise, "
            f"{start}. Tokens in the sand it passes or stops on go to the tanks; the spice there is lost (A-2)."]


def _storm_cards(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, StormCardsDetails)
    distance = counted(d.distance, "sector")
    facts = [f"The storm will move {distance} from sector {seen.storm_sector} unless a card changes it. "
             "Every faction is asked, so nobody learns who holds a storm card."]
    if WEATHER_CONTROL in prompt.options:
        low, high = d.weather_control_range
        facts.append(f"You hold {card_name(WEATHER_CONTROL)}: you may make the storm move {low} to {high} sectors "
                     "instead.")
    if FAMILY_ATOMICS in prompt.options:
        facts.append(f"You hold {card_name(FAMILY_ATOMICS)}, and you may play it: it destroys the Shield Wall.")
    if len(prompt.options) == 1:
        facts.append("You have no storm card to play now: answer that you play none.")
    facts.append("To be asked no more: `/me orders`, storm cards \u201cnever\u201d (a secret standing order that "
                 "answers this for you at once).")
    return facts


# --- bidding (A-5, A-6, A-8) ---------------------------------------------------------------------------


def _bid(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, BidDetails)
    high = (f"the high bid is {d.high_bid}, by the {faction_words(d.high_bidder)}" if d.high_bidder
            else "nobody has bid yet")
    low, most = d.min_bid, d.max_bid
    facts = [f"Card {d.card_number} of {d.cards} is up for auction; {high}.",
             f"Your spice: {seen.own.spice if seen.own else most}: "
             + (f"you may bid {low} to {most}, or pass." if most > low else f"you may bid {low}, or pass."
                if most == low else "you cannot outbid it: pass." if d.high_bidder else
                "you have no spice to bid: pass.")]
    if seen.viewer == Faction.BENE_TLEILAXU and seen.bt_open_spice and seen.own is not None:
        facts.append(_declaration_at_stake(seen.own.spice - seen.bt_open_spice))
    if d.allies:
        facts.append(f"Your ally ({_allies(d.allies)}) may pay part of a bid (A-8): `/play bid amount:N ally_pays:M`.")
    if seen.own is not None and seen.viewer is not None:
        facts.append(f"Your hand: {len(seen.own.hand)} of {hand_limit(seen.viewer)} cards.")
    return facts


def _declaration_at_stake(hidden: int) -> str:
    """BT-27, BT-28: a declaration running, what a bid won would do to it (hidden spice is spent first)."""
    shown = f"{SPICE_WIN} of your spice lie in open view (your spice-win declaration, BT-27)"
    if not hidden:
        return f"{shown}: any bid, if you win the card, leaves you below {SPICE_WIN} and ends the declaration (BT-28)."
    return (f"{shown}. Your hidden spice goes first: a bid above {hidden}, if you win the card, leaves you below "
            f"{SPICE_WIN} and ends the declaration (BT-28).")


# --- revival (A-7, A-15, BT-60) ------------------------------------------------------------------------


def _revival(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, RevivalDetails)
    mine = _public(seen)
    elites = f" ({mine.elites_in_tanks} elite)" if mine.elites_in_tanks else ""
    dead = option_names(mine.leaders_in_tanks)
    facts = [f"In your tanks: {counted(mine.tanks, 'token')}{elites}; leaders: {dead}."]
    costs = d.token_costs
    if len(costs) > 1:
        counts = ", ".join(f"{counted(n, 'token')} cost{'s' if n == 1 else ''} "
                           f"{'nothing' if cost == 0 else f'{cost} spice'}"
                           for n, cost in enumerate(costs) if n)
        facts.append(f"You may revive up to {counted(len(costs) - 1, 'token')} this turn: {counts}.")
    priced = {option_name(leader): cost for leader, cost in d.leader_costs.items()}
    if d.kwisatz_haderach_cost is not None:
        priced["the Kwisatz Haderach"] = d.kwisatz_haderach_cost
    if priced:
        how_many = "up to two leaders" if d.max_leaders > 1 else "one leader"
        facts.append(f"You may revive {how_many}: " + ", ".join(f"{name} ({'free' if cost == 0 else f'{cost} spice'})"
                                                                 for name, cost in priced.items()) + ".")
    if d.bt_alliance:
        facts.append("Your alliance with the Bene Tleilaxu makes this revival free (BT-60).")
    if d.bt_refused:
        facts.append("Your ally the Bene Tleilaxu did not grant you free revival this turn: you revive as usual, and "
                     "what you pay goes to them (BT-60, BT-10).")
    facts.append(f"Your spice: {d.spice}.")
    return facts


def _bt_ally_revival(seen: PlayerView, prompt: Prompt) -> list[str]:
    """BT-60: what the BT grant or refuse, from the ally's public tanks and its revival as usual (A-7)."""
    d = details_of(prompt, BtAllyRevivalDetails)
    dead = option_names(d.leaders)
    most, free = d.usual_tokens, d.usual_free
    usual = []
    if most:
        usual.append(f"up to {counted(most, 'token')}" + (f" ({free} free" if free else " (")
                     + (", the others 2 spice each)" if most > free else ")"))
    if d.usual_leaders:
        usual.append("one leader for his strength in spice")
    refuse = (f"Refuse: they revive as usual, {' and '.join(usual)}; the spice they pay is yours (BT-10)." if usual
              else "Refuse: as usual they may revive nothing this turn (a leader only once all five are dead).")
    return [f"In the tanks of your ally, the {faction_words(d.ally)}: {counted(d.tanks, 'token')}; leaders: {dead}.",
            "Grant: this turn they may revive up to 6 tokens and 2 leaders, all free (BT-60, R-14).", refuse,
            "Your answer stays secret: your ally learns it when asked about their revival, the table when they "
            "revive."]


# --- shipment and movement (1979 rules, BT-16) -------------------------------


def _closed_places(seen: PlayerView, full: list[str]) -> str:
    line = f"Closed to you: sector {seen.storm_sector} (the storm)"
    if full:
        line += f"; {listed(full)} (two other factions there)"
    return line + "."


def _shipment(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, ShipmentDetails)
    if d.impaired:
        return ["A Bene Tleilaxu worthless card bars you from shipping this turn (BT-16): ship nothing."]
    facts = [f"Your reserves: {counted(d.reserves, 'token')}; your spice: {d.spice}."]
    if d.free:
        facts.append("The Fremen bring their tokens free, to The Great Flat or a territory near it.")
    else:
        half = ", half that (rounded up) for the Guild and its allies" if d.half_price else ""
        facts.append(f"Shipping costs {d.stronghold_rate} spice a token into a stronghold, {d.elsewhere_rate} "
                     f"elsewhere{half}.")
    if d.ship_from:
        facts.append("You may also ship tokens from the board to another territory, or back to your reserves for 1 "
                     "spice per 2 tokens (A-23).")
    facts.append(_closed_places(seen, d.full_strongholds))
    if d.allies and not d.free:
        facts.append(f"Your ally ({_allies(d.allies)}) may pay part (A-8): `/play ship ... ally_pays:N`.")
    return facts


def _movement(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, MovementDetails)
    distance = d.range
    why = ("ornithopters: you have tokens in Arrakeen or Carthag" if d.ornithopters
           else "the Fremen move two" if seen.viewer == Faction.FREMEN and distance == 2 else "no ornithopters")
    if d.impaired:
        facts = ["A Bene Tleilaxu worthless card bars you from moving your tokens this turn (BT-16): you can only "
                 "move nothing."]
    else:
        facts = [f"You may move one group {distance} territor{'y' if distance == 1 else 'ies'} ({why}), around the "
                 "storm and full strongholds."]
    facts.append(f"Your tokens: {_own_groups(seen)}.")
    if d.coexist is not None and (d.coexist.advisors or d.coexist.fighters):
        facts.append("You may also declare co-existence in a territory (A-15): your tokens there become advisors, "
                     "or your advisors fighters; you are then asked to move again.")
    if seen.own is not None and HAJR in seen.own.hand:
        facts.append(f"You hold {card_name(HAJR)}: `/card hajr` gives you one more move.")
    return facts


# --- setup, the worm, the turn's other public decisions -------------------------------------------------


def _starting_placement(seen: PlayerView, prompt: Prompt) -> list[str]:
    total, places = details_of(prompt, StartingPlacementDetails).tokens, list(prompt.options)
    if total > 1:
        return [f"Place your {counted(total, 'token')} in {listed(places)}, split as you like: each place offers "
                "what is left, the last one takes the rest."]
    return [f"Place your starting token anywhere: {len(places)} territories to choose from (A-15)."]


def _worm_ride(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, WormRideDetails)
    if d.impaired:
        return [f"Shai-Hulud appeared in {d.territory}, but a Bene Tleilaxu worthless card bars you from moving "
                "this turn (BT-16): you stay."]
    return [f"Shai-Hulud appeared in {d.territory}: your {counted(d.tokens, 'token')} there may ride it to any other "
            f"territory, not under the storm (sector {seen.storm_sector}), not a full stronghold and not where your "
            "ally is; or stay."]


def _worm_placement(seen: PlayerView, prompt: Prompt) -> list[str]:
    return ["Shai-Hulud appeared again in this blow: place it in a sand territory, where it devours what is "
            "there, or nowhere (A-21)."]


def _spiritual_advisor(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, SpiritualAdvisorDetails)
    facts = [f"The {faction_words(d.shipper)} shipped: you may send one token from your reserves "
             f"({counted(_public(seen).reserves, 'token')}), free, to {where(d.to_location)}."]
    if d.shipment_location:
        facts.append(f"Or (A-15) send it with their shipment to {where(d.shipment_location)}, where it co-exists "
                     "as an advisor.")
    return facts


def _guild_timing(seen: PlayerView, prompt: Prompt) -> list[str]:
    before = faction_words(details_of(prompt, GuildTimingDetails).before)
    return [f"The {before} are about to take their turn: take yours now, before them, or wait. Having waited past "
            "everyone, you go last."]


def _nexus(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, NexusDetails)
    allies = _allies(d.allies) if d.allies else "none"
    offers = _allies(d.offers) if d.offers else "none"
    # Who is still talking is public (each "done" is announced): it says why some factions are not offered.
    talking = [a.faction for a in seen.awaiting if a.kind == PromptKind.NEXUS and a.faction != prompt.faction]
    done = [p.faction for p in seen.factions if p.faction not in (prompt.faction, *talking)]
    lines = [f"Your allies: {allies}. Offers standing to you: {offers}."]
    if done:
        still = listed([f"the {faction_words(f)}" for f in talking]) if talking else "nobody else"
        lines.append(f"Done with this Nexus: {listed([f'the {faction_words(f)}' for f in done])}; still talking: "
                     f"{still}.")
    return lines + [f"An alliance has at most {d.max_alliance_size} members. Once you are done you may not "
                    "act again in this Nexus; your offer still stands."]


def _truthtrance(seen: PlayerView, prompt: Prompt) -> list[str]:
    d = details_of(prompt, TruthtranceDetails)
    return [f"The {faction_words(d.asker)} played Truthtrance: answer yes or no, truthfully, in "
            f"public: \u201c{d.question}\u201d"]


def _leader_capture(seen: PlayerView, prompt: Prompt) -> list[str]:
    leader = details_of(prompt, LeaderCaptureDetails).leader
    them = pronouns(leader)
    return [f"You captured {option_name(leader)}: keep {them.object} ({them.subject} may lead for "
            f"you), kill {them.object} for spice, or let {them.object} go home."]


TURN_FACTS: dict[PromptKind, Facts] = {
    PromptKind.STORM_DIAL: _storm_dial,
    PromptKind.STORM_CARDS: _storm_cards,
    PromptKind.BID: _bid,
    PromptKind.REVIVAL: _revival,
    PromptKind.BT_ALLY_REVIVAL: _bt_ally_revival,
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
