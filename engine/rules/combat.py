"""How a weapon meets a defense (1979 rules: Battles; BT-12 for the BT's attacks): shared by battles and by the
BT's leader and trap attacks."""

from __future__ import annotations

from engine.data import load_game_data
from engine.ids import CardCategory


def category(card_id: str) -> CardCategory:
    return load_game_data().card(card_id).category


def weapon_kills(weapon: str | None, defense: str | None) -> bool:
    """Projectile against shield, poison against snooper; the lasgun kills through anything."""
    if weapon is None:
        return False
    kind = category(weapon)
    guard = category(defense) if defense else None
    if kind == CardCategory.LASGUN:
        return True
    if kind == CardCategory.PROJECTILE:
        return guard != CardCategory.SHIELD
    if kind == CardCategory.POISON:
        return guard != CardCategory.SNOOPER
    return False
