"""The map through SimCord (tests/test_discord_e2e.py describes the set-up): /game map uploads the picture, the
caller's own map only to the caller, and the outbox drain uploads the table's map after a flagged post."""

from __future__ import annotations

from bot.app.map_picture import render_map
from bot.app.ports import OutgoingMessage, Recipient
from engine.ids import Faction
from tests.helpers import discord_tables as e2e
from tests.helpers.discord_tables import answered, deliver

# The e2e module's fixtures: the bot, #dune with its members, and the game seated and started there.
simcord_bot, room, table = e2e.simcord_bot, e2e.room, e2e.table
BT = Faction.BENE_TLEILAXU


async def _state(table):
    return await table.env.bot.service.state_of(f"g{table.channel.id}")


async def test_game_map_posts_the_tables_picture_for_everyone(table):
    asked = await table.dave.slash(table.channel, "game map")
    shown = answered(asked)
    assert not asked.ephemeral
    [picture] = shown.attachments
    assert picture.filename.endswith(".png")
    assert await picture.read() == render_map(await _state(table), None)
    seen_by_bob = table.channel.history(viewer=table.players[Faction.HARKONNEN])
    assert any(m.attachments and m.attachments[0].filename == picture.filename for m in seen_by_bob)


async def test_game_map_mine_shows_the_bts_own_picture_to_the_bt_alone(table):
    channel_before = len(table.channel.history(viewer=table.dave))
    asked = await table.players[BT].slash(table.channel, "game map", mine=True)
    assert asked.ephemeral
    [picture] = answered(asked).attachments
    assert await picture.read() == render_map(await _state(table), BT)
    assert len(table.channel.history(viewer=table.dave)) == channel_before, "nobody else sees it"


async def test_a_flagged_post_is_followed_by_the_tables_map_in_the_channel(table):
    before = len(table.channel.history(viewer=table.dave))
    flagged = OutgoingMessage(recipient=Recipient(channel=True), text="Shipment and movement are over.",
                              attach_map=True)
    await table.env.bot.service.store.queue(f"g{table.channel.id}", [flagged])
    table.env.bot.wake_outbox()
    await deliver(table.env)
    news = table.channel.history(viewer=table.dave)[before:]
    assert [m.content for m in news][0] == "Shipment and movement are over."
    [picture] = [a for m in news for a in m.attachments]
    assert await picture.read() == render_map(await _state(table), None)
