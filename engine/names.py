"""Display names for the words the engine writes into events."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from engine.data import load_game_data
from engine.ids import Faction
from engine.model import BidOrder, PromptKind

# What each kind of decision is called where a player reads it (never the engine's word).
DECISION_NAMES: dict[PromptKind, str] = {
    PromptKind.TRAITOR_PICK: "your traitor",
    PromptKind.BG_PREDICTION: "the Bene Gesserit prediction",
    PromptKind.BT_TRAPS: "the Bene Tleilaxu traps at setup",
    PromptKind.STARTING_PLACEMENT: "where your starting tokens go",
    PromptKind.STORM_DIAL: "the storm dial",
    PromptKind.NEXUS: "alliances at the Nexus",
    PromptKind.WORM_RIDE: "a ride on Shai-Hulud",
    PromptKind.BID: "a bid",
    PromptKind.REVIVAL: "revival",
    PromptKind.SHIPMENT: "your shipment",
    PromptKind.MOVEMENT: "your move",
    PromptKind.SPIRITUAL_ADVISOR: "a spiritual advisor",
    PromptKind.BATTLE_CHOICE: "which battle to fight",
    PromptKind.PRESCIENCE: "the prescience question",
    PromptKind.PRESCIENCE_ANSWER: "the answer to prescience",
    PromptKind.VOICE: "the Voice",
    PromptKind.BATTLE_PLAN: "your battle plan",
    PromptKind.TRAITOR_CALL: "a traitor call",
    PromptKind.STORM_CARDS: "storm cards (Weather Control, Family Atomics)",
    PromptKind.TRUTHTRANCE: "a Truthtrance answer",
    PromptKind.BT_ATTACK: "the Bene Tleilaxu leader attack",
    PromptKind.BT_MARK: "marking a revived leader",
    PromptKind.BT_REVEAL_WINDOW: "revealing a traitor after this battle",
    PromptKind.BT_TRAPS_AND_GIFTS: "Bene Tleilaxu traps and gifts",
    PromptKind.WORM_PLACEMENT: "where Shai-Hulud appears",
    PromptKind.GUILD_TIMING: "when the Guild takes its turn",
    PromptKind.HAND_SWAP: "the cards you give back",
    PromptKind.LEADER_CAPTURE: "a captured leader",
    PromptKind.BT_IMPAIRMENT: "the impairment of a worthless trap",
    PromptKind.BT_REVEAL_KARAMA: "a Karama against the Bene Tleilaxu's traitor reveal",
    PromptKind.BT_ALLY_REVIVAL: "free revival for your ally",
}

# A kind of decision as a noun a label puts before "decisions" ("battle plan decisions", for a deadline).
DECISION_TOPICS: dict[PromptKind, str] = {
    PromptKind.TRAITOR_PICK: "traitor pick",
    PromptKind.BG_PREDICTION: "Bene Gesserit prediction",
    PromptKind.BT_TRAPS: "Bene Tleilaxu setup trap",
    PromptKind.STARTING_PLACEMENT: "starting placement",
    PromptKind.STORM_DIAL: "storm dial",
    PromptKind.NEXUS: "Nexus alliance",
    PromptKind.WORM_RIDE: "worm ride",
    PromptKind.BID: "bid",
    PromptKind.REVIVAL: "revival",
    PromptKind.SHIPMENT: "shipment",
    PromptKind.MOVEMENT: "move",
    PromptKind.SPIRITUAL_ADVISOR: "spiritual advisor",
    PromptKind.BATTLE_CHOICE: "battle choice",
    PromptKind.PRESCIENCE: "prescience question",
    PromptKind.PRESCIENCE_ANSWER: "prescience answer",
    PromptKind.VOICE: "Voice",
    PromptKind.BATTLE_PLAN: "battle plan",
    PromptKind.TRAITOR_CALL: "traitor call",
    PromptKind.STORM_CARDS: "storm card",
    PromptKind.TRUTHTRANCE: "Truthtrance answer",
    PromptKind.BT_ATTACK: "Bene Tleilaxu leader attack",
    PromptKind.BT_MARK: "Bene Tleilaxu traitor mark",
    PromptKind.BT_REVEAL_WINDOW: "Bene Tleilaxu traitor reveal",
    PromptKind.BT_TRAPS_AND_GIFTS: "Bene Tleilaxu trap and gift",
    PromptKind.WORM_PLACEMENT: "worm placement",
    PromptKind.GUILD_TIMING: "Guild timing",
    PromptKind.HAND_SWAP: "Harkonnen card return",
    PromptKind.LEADER_CAPTURE: "captured leader",
    PromptKind.BT_IMPAIRMENT: "trap impairment",
    PromptKind.BT_REVEAL_KARAMA: "Karama against a reveal",
    PromptKind.BT_ALLY_REVIVAL: "ally free revival",
}


def decision_topic(kind: PromptKind) -> str:
    """The kind of decision as a label's noun ("battle plan", "Nexus alliance")."""
    return DECISION_TOPICS[kind]


def decision_name(kind: PromptKind) -> str:
    """The decision as its decider reads it ("your shipment")."""
    return DECISION_NAMES[kind]


def table_decision_name(kind: PromptKind) -> str:
    """The decision as the table reads it ("their shipment")."""
    name = decision_name(kind)
    return "their " + name.removeprefix("your ") if name.startswith("your ") else name


def faction_name(faction: Faction) -> str:
    """The faction's name, bare, for labels and lists ("Emperor", "Atreides")."""
    return load_game_data().factions[faction].name


# The one grammar of a faction in a sentence: "the" and its name, with the verb agreeing. The Emperor and the
# Spacing Guild are one person or body ("the Emperor buys"); the others are peoples ("the Atreides buy").
SINGULAR_FACTIONS = frozenset({Faction.EMPEROR, Faction.GUILD})
_SINGULAR_VERBS = {"are": "is", "have": "has", "do": "does", "were": "was"}
_SAME_VERBS = {"may", "must", "can", "will", "could", "would", "chose", "did"}  # and every verb in the past tense


def the_faction(faction: Faction) -> str:
    """ "the Atreides", "the Emperor": the faction as a sentence names it."""
    return f"the {faction_name(faction)}"


def agreeing(faction: Faction, verb: str) -> str:
    """The verb (given as for a people: "buy") agreeing with the faction: "buys" for the Emperor, "buy" for the
    Atreides; for a second verb of the same subject ("the Emperor wins and keeps")."""
    if faction in SINGULAR_FACTIONS and verb not in _SAME_VERBS and not verb.endswith("ed"):
        return _SINGULAR_VERBS.get(verb) or (verb + "es" if verb.endswith(("s", "sh", "ch", "x", "o")) else
                                             verb[:-1] + "ies" if verb[-1:] == "y" and verb[-2:-1] not in "aeiou"
                                             else verb + "s")
    return verb


def faction_does(faction: Faction, verb: str, *, start: bool = False) -> str:
    """ "the Atreides buy", "the Emperor buys": the faction and a verb (given as for a people) agreeing with it;
    `start` capitalises the article for a sentence's first words."""
    text = f"{the_faction(faction)} {agreeing(faction, verb)}"
    return text[0].upper() + text[1:] if start else text


def faction_possessive(faction: Faction) -> str:
    """ "the Atreides'", "the Emperor's"."""
    name = the_faction(faction)
    return name + ("'" if name.endswith("s") else "'s")


def listed(items: list[str]) -> str:
    """ "Arrakeen, Carthag and Tuek": things named in a sentence; "none" for no thing."""
    if not items:
        return "none"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def factions_list(factions: list[Faction], *, start: bool = False) -> str:
    """ "the Harkonnen and the Emperor": factions named in a sentence (a plural subject); `start` capitalises the
    first article."""
    text = listed([the_faction(f) for f in factions])
    return text[0].upper() + text[1:] if start else text


def leader_name(leader_id: str) -> str:
    return load_game_data().leader(leader_id).name


class Pronouns(NamedTuple):
    subject: str  # "he", "she"
    object: str  # "him", "her"
    possessive: str  # "his", "her"


PRONOUNS = {"he": Pronouns("he", "him", "his"), "she": Pronouns("she", "her", "her")}


def pronouns(leader_id: str) -> Pronouns:
    """How a sentence refers to a leader it has named (data/factions.json `pronoun`)."""
    return PRONOUNS[load_game_data().leader(leader_id).pronoun]


def card_name(card_id: str) -> str:
    return load_game_data().card(card_id).name


def location_label(location: str) -> str:
    """"Arrakeen" for a one-sector territory, "False Wall West (sector 16)" where the sector matters."""
    board = load_game_data().board
    territory = board.territory(board.location_territory(location))
    if len(territory.locations) == 1:
        return territory.name
    return f"{territory.name} (sector {board.location_sector(location)})"


def option_name(option: str) -> str:
    """A prompt option for people: a leader's or a card's name where it is one, else the option's words."""
    data = load_game_data()
    for lookup in (data.leader, data.card):
        try:
            return lookup(option).name
        except (KeyError, LookupError):
            continue
    return option.replace("_", " ")


def option_names(options: Iterable[str]) -> str:
    """ "Duncan Idaho, Crysknife": options by their names, separated by commas; "none" for no option."""
    return ", ".join(option_name(option) for option in options) or "none"


def choice_words(option: str) -> str:
    """Any choice the engine names by its id, for people: a faction's, a leader's or a card's name, a place's label,
    else its words."""
    try:
        return faction_name(Faction(option))
    except ValueError:
        pass
    try:
        return location_label(option)
    except (KeyError, LookupError):
        return option_name(option)


def counted(count: int, thing: str) -> str:
    """"1 token", "3 tokens": a count for the table to read."""
    return f"{count} {thing}{'' if count == 1 else 's'}"


def advisors_among(advisors: int) -> str:
    """The words after a count of tokens that includes Bene Gesserit advisors (R-38): ", 2 of them Bene Gesserit
    advisors"; nothing when there are none."""
    if not advisors:
        return ""
    return f", {advisors} of them Bene Gesserit advisor{'s' if advisors != 1 else ''}"


def what_bid_order_does(order: BidOrder) -> str:
    """A bidding order (A-6) as its owner reads it, without how long it lasts: "pass on every card", "outbid the
    high bid by 1, up to 4 spice, else pass"."""
    return ("pass on every card" if order.auto_pass
            else f"outbid the high bid by 1, up to {order.max_bid} spice, else pass")
