"""Moderating blind (issue 15), end to end through SimCord: in the `table` of tests/test_discord_e2e.py alice holds
the moderators role and plays the Atreides. While the game runs, her /game export is what her seat knows, like any
player's; the table's secrets stay with their owners."""

from __future__ import annotations

import json

from engine.actions import parse_action
from engine.game import apply, new_game
from engine.ids import Faction
from engine.options import GameSetup
from engine.secrecy.views import view
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import answered

simcord_bot, room, table = e2e.simcord_bot, e2e.room, e2e.table  # the fixtures of tests/helpers/discord_tables.py

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU


def _secrets_of_others(setup: GameSetup, stored, reader: Faction) -> list[str]:
    """Every private message of the game so far that `reader` was not told: a hand, a traitor, a trap..."""
    state, events = new_game(setup)
    hidden = [e.message for e in events if not e.public and reader not in e.audience]
    for action in stored:
        state, events = apply(state, parse_action(action.action_json))
        hidden += [e.message for e in events if not e.public and reader not in e.audience]
    return hidden


async def test_a_moderator_seated_as_a_player_exports_a_running_game_and_gets_only_their_seats_knowledge(table):
    service = table.env.bot.service
    game = await service.store.game_in_channel(table.channel.id)
    exported = answered(await table.players[A].slash(table.channel, "game export"))
    assert exported.ephemeral and exported.content.startswith("The game so far as you know it: the public log and "
                                                               "your own secrets.")
    text = (await exported.attachments[0].read()).decode()
    got = json.loads(text)

    state = await service.state_of(game.game_id)
    setup = GameSetup.model_validate_json(game.setup_json)
    assert got["reader"] == "atreides" and set(got) == {"format", "reader", "factions", "options", "seats", "log",
                                                        "now"}
    assert '"seed"' not in text and "actions" not in got  # nothing to replay the hidden deal from
    assert got["now"] == view(state, A).model_dump(mode="json")  # the game now: her own view
    others = [card for f in (H, BT) for card in state.faction(f).hand if card not in state.faction(A).hand]
    assert others and not any(f'"{card}"' in text for card in others)  # no card of another hand
    assert state.faction(H).traitors and all(
        f["faction"] == "atreides" for f in _dicts(got) if f.get("traitors"))  # no traitor but her own
    told = " ".join(m for entry in got["log"] for m in entry["events"])
    hidden = _secrets_of_others(setup, await service.store.actions(game.game_id), A)
    assert hidden and not any(secret in told for secret in hidden)  # the Harkonnen's traitors, the BT's cards...
    assert "Choose one traitor to keep from" in told  # and her own secrets are hers


def _dicts(node):
    """Every JSON object inside `node`."""
    if isinstance(node, dict):
        yield node
        node = list(node.values())
    if isinstance(node, list):
        for item in node:
            yield from _dicts(item)
