"""The names a seat's own view knows (cards, leaders), which a catch-up may name."""

from __future__ import annotations

import re

from engine.data import load_game_data
from engine.names import card_name, leader_name
from engine.secrecy.views import view


def names_known_to(state, faction) -> set[str]:
    """The card and leader names the seat's own view names anywhere (its hand, its leaders, the discard...): a
    catch-up may name those, even when another seat also holds a card or a leader of that name."""
    data = load_game_data()
    ids = set(re.findall(r'"([a-z][a-z_0-9]*)"', view(state, faction).model_dump_json()))
    cards = {card.id for card in data.treachery_cards}
    leaders = {leader.id for fd in data.factions.values() for leader in fd.leaders}
    return {card_name(i) for i in ids & cards} | {leader_name(i) for i in ids & leaders}
