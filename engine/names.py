"""Display names for the words the engine writes into events."""

from __future__ import annotations

from typing import NamedTuple

from engine.data import load_game_data
from engine.ids import Faction
from engine.model import PromptKind

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
    PromptKind.GUILD_TIMING: "when the Guild take their turn",
    PromptKind.HAND_SWAP: "the cards you give back",
    PromptKind.LEADER_CAPTURE: "a captured leader",
    PromptKind.BT_IMPAIRMENT: "the impairment of a worthless trap",
    PromptKind.BT_REVEAL_KARAMA: "a Karama against the Bene Tleilaxu's traitor reveal",
}


def decision_name(kind: PromptKind) -> str:
    """The decision as its decider reads it ("your shipment")."""
    return DECISION_NAMES[kind]


def table_decision_name(kind: PromptKind) -> str:
    """The decision as the table reads it ("their shipment")."""
    name = decision_name(kind)
    return "their " + name.removeprefix("your ") if name.startswith("your ") else name


def faction_name(faction: Faction) -> str:
    return load_game_data().factions[faction].name


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


def counted(count: int, thing: str) -> str:
    """"1 token", "3 tokens": a count for the table to read."""
    return f"{count} {thing}{'' if count == 1 else 's'}"
