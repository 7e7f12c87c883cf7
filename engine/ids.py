"""Identifiers shared by the whole engine: factions, phases, kinds of territory and card."""

from __future__ import annotations

from enum import StrEnum


class Faction(StrEnum):
    ATREIDES = "atreides"
    BENE_GESSERIT = "bene_gesserit"
    EMPEROR = "emperor"
    FREMEN = "fremen"
    GUILD = "guild"
    HARKONNEN = "harkonnen"
    BENE_TLEILAXU = "bene_tleilaxu"


BASE_FACTIONS: tuple[Faction, ...] = (
    Faction.ATREIDES,
    Faction.BENE_GESSERIT,
    Faction.EMPEROR,
    Faction.FREMEN,
    Faction.GUILD,
    Faction.HARKONNEN,
)


class TerritoryKind(StrEnum):
    STRONGHOLD = "stronghold"
    ROCK = "rock"
    SAND = "sand"
    POLAR_SINK = "polar_sink"


class CardCategory(StrEnum):
    PROJECTILE = "projectile weapon"
    POISON = "poison weapon"
    LASGUN = "lasgun"
    SHIELD = "shield"
    SNOOPER = "snooper"
    CHEAP_HERO = "cheap hero"
    WORTHLESS = "worthless"
    SPECIAL = "special"
