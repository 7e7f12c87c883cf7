"""End to end through SimCord (an in-process simulated Discord running discord.py's own command tree, views and
HTTP layer): the real MentatBot, its cogs, persistent buttons, DiscordGateway and outbox drain loop, driven by
simulated members. Each test asserts what the channel shows (as a member who is not in the game sees it, so
nobody's ephemeral answer) and what each player's DMs show, and what they do not.

What SimCord covers here: slash commands with their option types, choices and ranges as Discord would send
them; ephemeral versus public answers and who can see them; DMs; buttons that survive as dynamic items; the
`discord.ext.tasks` loop that drains the outbox, whose sleep SimCord parks and fires on its virtual clock, with
the deadline tick it runs (tests/test_discord_e2e_lobby.py); Discord refusing a message (a channel post, a closed
DM) through injected errors.

Where SimCord falls short, and what the tests do instead:
- A parked wait fires only through `env.advance_time`, never on the wall clock. `wake_outbox()` makes the
  loop's sleep due at once, which in production runs on the next turn of the event loop; in SimCord it is a
  virtual timer one microsecond ahead, so after each command the tests advance the clock by `WAKE` (1 ms, far
  below the drain interval: a missing wake would leave the message undelivered, so the wake is tested).
- Real concurrency: SimCord runs one operation at a time, so a double click here is two clicks in a row; two
  presses handled at the same moment are tested in test_discord_handlers.py (on SQLite, so they interleave).
  Stopping the loop at shutdown while a drain is in flight is tested here without SimCord, which detaches the
  bot by cancelling its tasks and never calls `close()`.
- SimCord's clock drives discord.py (`discord.utils.utcnow`, the tasks loop), not `datetime.now`, which the
  service and the store use by default: the fixture hands them `discord.utils.utcnow` so that deadlines
  follow `advance_time`.
- Commands must be synced (strict_sync): the bot syncs them globally at start (tests/test_discord_e2e_setup.py);
  the fixtures here also run `bot.tree.sync()` by hand, as they did before it did, which changes nothing.
- Scenario games (a trap about to be sprung, a betrayal waiting) are stored directly at an engine state built
  with the engine tests' helpers (tests/conftest.py store_running_game); they have no action history, so the
  tests do not undo or export them.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from simcord.backend.errors import SetupError

from bot.app.ports import OutgoingMessage, Recipient
from bot.discord.client import DRAIN_INTERVAL, MentatBot
from engine.data import load_game_data
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind, Trap
from engine.names import card_name, leader_name
from tests.conftest import enter_phase
from tests.helpers.discord_tables import (
    answered,
    bidding_with_a_gift_to_make,
    deliver,
    reply,
    room,
    simcord_bot,
    status_boards,
    table,
    table_messages,
)
from tests.helpers.positions.bt_attacks import bt_arena
from tests.helpers.positions.bt_traitors import ARRAKEEN, DUNCAN, at, position, stronghold_won

room, simcord_bot, table = room, simcord_bot, table  # the fixtures: pytest finds them here by name

A, H, BT = Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU


# --- game creation and the opening deal ----------------------------------------------------------------------


async def test_starting_sends_the_table_news_and_each_seat_its_own_deal(table):
    shown = table.screens()
    for faction, name in ((A, "Atreides"), (H, "Harkonnen"), (BT, "Bene Tleilaxu")):
        assert f"{table.players[faction].mention} plays {name}." in shown["channel"]
    [lobby] = [text for text in shown["channel"] if "A game of Dune" in text and "Pace:" in text]  # announced once
    assert lobby.startswith("**A game of Dune has started: Atreides, Harkonnen, Bene Tleilaxu.**")
    assert any("A game of Dune begins with Atreides, Harkonnen, Bene Tleilaxu" in text for text in shown["channel"])
    for faction in table.players:
        assert shown[faction.value] and all(text.startswith("**Dune in <#") for text in shown[faction.value])
        assert any("Your starting Treachery cards" in text for text in shown[faction.value])
    assert any("Choose one traitor to keep from" in text for text in shown["atreides"])
    assert any("you keep all 4" in text for text in shown["harkonnen"])  # the Harkonnen keeps every traitor
    assert any("**Your decision: the Bene Tleilaxu traps at setup**" in text for text in shown["bene_tleilaxu"])
    # nobody's deal reaches the channel, and no member's card reaches another member's DMs
    assert not any("Your starting Treachery cards" in text for text in shown["channel"])


async def test_a_traitor_picked_by_the_dm_button_is_announced_without_its_name(table):
    alice = table.players[A]
    prompt = next(m for m in alice.user.dm_channel.history() if "Your decision: your traitor" in m.content)
    buttons = [item for row in prompt.components for item in row.children]
    assert len(buttons) == 4 and all(b.custom_id.startswith("mentat:") for b in buttons)
    leader = buttons[0].label
    before = table.screens()

    clicked = await alice.user.click(prompt, label=leader)
    assert clicked.ephemeral and reply(clicked).startswith(f"Done: {leader}")
    await deliver(table.env)
    news = table.news(before)
    assert news["channel"] == "The Atreides chose a traitor.\nTraitor picks: all answered."  # a window of one
    assert leader not in news["channel"] + news["harkonnen"] + news["bene_tleilaxu"]

    # closed is closed: the card now says how, and no control of it can be pressed
    closed = next(m for m in alice.user.dm_channel.history() if m.id == prompt.id)
    assert closed.content.endswith(f"**You answered: keep {leader} as your traitor.**")
    assert all(item.disabled for row in closed.components for item in row.children)
    with pytest.raises(SetupError, match="disabled"):
        await alice.user.click(closed, label=buttons[1].label)


async def test_the_status_board_is_pinned_once_and_edited_in_place_after_every_action(table):
    """Whom the game waits for, as the table may know it (a secret decision is only that), and until when: the
    daily pace gives the setup's decisions a day; a decision still open keeps its deadline as others answer."""
    [board] = status_boards(table)
    assert board.pinned and board.content.startswith("**Status · turn 0 · ")
    waiting = dict(re.findall(r"(\w[\w ]*?) \(a secret decision, until (<t:\d+:f>)\)", board.content))
    assert set(waiting) == {"Atreides", "Bene Tleilaxu"}  # the traitor pick, the traps at setup
    first = board.content
    await table.env.advance_time(3600)  # an hour later
    alice = table.players[A]
    prompt = next(m for m in alice.user.dm_channel.history() if "Your decision: your traitor" in m.content)
    leader = [item for row in prompt.components for item in row.children][0].label
    await alice.user.click(prompt, label=leader)
    await deliver(table.env)
    [board] = status_boards(table)  # the same post, never posted again
    assert board.pinned and board.content != first
    assert "Atreides (a secret decision" not in board.content and leader not in board.content
    assert f"Bene Tleilaxu (a secret decision, until {waiting['Bene Tleilaxu']})" in board.content
    assert board.content.splitlines()[1:4] == [
        "- Atreides: 0 on the board, 20 in reserve, 0 in the tanks, 1 card",
        "- Harkonnen: 0 on the board, 20 in reserve, 0 in the tanks, 2 cards",
        "- Bene Tleilaxu: 4 cards"]  # BT-1: no tokens


async def test_a_double_click_is_applied_once(table):
    alice = table.players[A]
    prompt = next(m for m in alice.user.dm_channel.history() if "Your decision: your traitor" in m.content)
    leader = [item for row in prompt.components for item in row.children][2].label
    before = table.screens()

    first = await alice.user.click(prompt, label=leader)
    second = await alice.user.click(prompt, label=leader)  # the same button again, before any delivery
    assert reply(first) == f"Done: {leader} (game version 1)."
    assert second.ephemeral and reply(second) == "That decision is already closed."
    await deliver(table.env)
    assert len(await table.actions()) == 1
    assert table.news(before)["channel"] == "The Atreides chose a traitor.\nTraitor picks: all answered."  # once
    state = await table.env.bot.service.state_of(f"g{table.channel.id}")
    assert [leader_name(t) for t in state.faction(A).traitors] == [leader]


async def test_a_stranger_is_refused_privately_and_rules_answer_privately(table):
    dave = table.dave
    bob_sees = [m.content for m in table.channel.history(viewer=table.players[H])]

    refused = await dave.slash(table.channel, "play bid", amount=3)
    assert refused.ephemeral and "Refused: You have no seat in this game" in reply(refused)

    rule = await dave.slash(table.channel, "rules", query="BT-2")
    assert rule.ephemeral
    assert reply(rule) == "**BT-2** The BT may join games of 3 to 7 players; a 2-player game with the BT is refused " \
                          "at creation."
    # neither answer shows for anybody else at the table
    assert [m.content for m in table.channel.history(viewer=table.players[H])] == bob_sees
    assert not any("no seat" in text or "BT-2" in text for text in bob_sees)
    assert await table.actions() == []


# --- the drain loop ------------------------------------------------------------------------------------------


async def test_without_a_wake_the_outbox_goes_out_at_the_next_periodic_drain(table):
    before = table.screens()
    queued = OutgoingMessage(recipient=Recipient(channel=True), text="Queued with no wake.")
    await table.env.bot.service.store.queue(f"g{table.channel.id}", [queued])  # nothing wakes the drain
    await deliver(table.env)
    assert table.news(before)["channel"] == ""
    await table.env.advance_time(DRAIN_INTERVAL)  # the periodic drain comes at most one interval later
    assert table.news(before)["channel"] == "Queued with no wake."


async def test_a_failed_delivery_is_retried_by_the_next_drain(table):
    before = table.screens()
    table.env.inject_error("POST", f"/channels/{table.channel.id}/messages", status=403, code=50013,
                           message="Missing Permissions", times=1)
    paused = await table.players[A].slash(table.channel, "admin pause")
    assert reply(paused) == "Paused."
    await deliver(table.env)
    assert table.news(before)["channel"] == ""  # refused once by Discord: still pending
    await table.env.advance_time(DRAIN_INTERVAL)
    news = table.news(before)["channel"]
    assert news.endswith("paused the game.") and news.count("\n") == 0  # delivered once, by the retry


class _SlowService:
    """A service whose deliveries wait until the test releases them."""

    hours = None  # nobody has quiet hours

    def __init__(self):
        self.delivering, self.release = asyncio.Event(), asyncio.Event()
        self.drains = 0

    async def tick(self) -> int:
        return 0

    async def deliver(self, gateway, patience=None) -> int:
        self.drains += 1
        self.delivering.set()
        await self.release.wait()
        return 0

    async def deliveries_settled(self) -> None:
        return None


def _offline_bot(service) -> MentatBot:
    bot = MentatBot(service, drain_interval=3600.0)

    async def ready() -> None:  # no login: the loop's before_loop waits for this
        return None

    bot.wait_until_ready = ready
    return bot


async def test_closing_lets_a_drain_in_progress_finish_and_a_wake_meanwhile_drains_again():
    service = _SlowService()
    bot = _offline_bot(service)
    bot.drain_outbox.start()
    await asyncio.wait_for(service.delivering.wait(), 5)
    service.delivering.clear()
    bot.wake_outbox()  # a commit during the drain: another drain must follow at once, not after an hour
    service.release.set()
    await asyncio.wait_for(service.delivering.wait(), 5)
    assert service.drains == 2

    service.release.clear()
    closing = asyncio.create_task(bot.close())
    await asyncio.sleep(0)
    assert not closing.done()  # waits for the delivery in flight instead of cancelling it
    service.release.set()
    await asyncio.wait_for(closing, 5)
    assert not bot.drain_outbox.is_running() and service.drains == 2


async def test_closing_while_the_drain_sleeps_stops_it_at_once():
    service = _SlowService()
    service.release.set()
    bot = _offline_bot(service)
    bot.drain_outbox.start()
    await asyncio.wait_for(service.delivering.wait(), 5)
    await asyncio.sleep(0)  # the drain returns to its hour-long sleep
    await asyncio.wait_for(bot.close(), 5)
    assert not bot.drain_outbox.is_running() and service.drains == 1


# --- scenarios of a BT-rich game -----------------------------------------------------------------------------


async def test_bt_40_a_gift_is_public_only_as_a_gift_and_a_bid_is_announced(room):
    state = bidding_with_a_gift_to_make()
    gift = state.faction(BT).hand[0]
    up = state.bidding.cards[0]
    await room.play_from(state)
    before = room.screens()

    given = await room.players[BT].slash(room.channel, "bt traps-and-gifts", gifts=f"{card_name(gift)}=atreides")
    assert given.ephemeral and reply(given) == "Done: give Shield to the Atreides (game version 1)."
    await deliver(room.env)
    news = room.news(before)
    assert "The Bene Tleilaxu give" in news["channel"] and "Atreides" in news["channel"]
    assert card_name(gift) not in news["channel"] and card_name(gift) not in news["harkonnen"]
    assert card_name(gift) in news["atreides"]  # only giver and receiver know the card (BT-40)
    # the Atreides' prescience of the card up for auction reaches the Atreides alone
    assert f"Prescience: card 1 up for auction is {card_name(up)}" in news["atreides"]
    assert card_name(up) not in news["channel"] + news["harkonnen"] + news["bene_tleilaxu"]
    assert "the Harkonnen open the bidding" in news["channel"]

    before = room.screens()
    bid = await room.players[H].slash(room.channel, "play bid", amount=2)
    assert bid.ephemeral and reply(bid) == "Done: bid 2 (game version 2)."
    again = await room.players[H].slash(room.channel, "play bid", amount=2)  # submitted twice
    assert again.ephemeral and reply(again).startswith("Refused: [")
    await deliver(room.env)
    auction = next(m.content for m in table_messages(room.channel) if m.content.startswith("Card 1 of"))
    assert auction.count("The Harkonnen bid 2") == 1  # the card's auction post, edited as the bids come in
    assert not any("The Harkonnen bid 2" in post for post in room.new_posts(before)["channel"])  # no post of its own
    assert len(await room.actions()) == 2


def trap_on_carthag() -> tuple[GameState, str]:
    """Turn 2's shipment, Atreides first (storm at 8); a face-down Crysknife trap lies on Carthag."""
    state = bt_arena((A, H, BT))
    state.storm_sector = 8
    state.treachery_deck.remove("crysknife")
    state.traps["Carthag"] = Trap(card="crysknife")
    state, _ = enter_phase(state, Phase.MOVEMENT)
    assert [(p.kind, p.faction) for p in state.prompts] == [(PromptKind.SHIPMENT, A)]
    return state, card_name("crysknife")


async def test_bt_31_32_r_22_a_sprung_trap_is_announced_and_its_card_shown_only_when_the_rules_say(room):
    state, card = trap_on_carthag()
    await room.play_from(state)
    alice, bob = room.players[A], room.players[H]
    before = room.screens()

    shipped = await alice.slash(room.channel, "play ship", to="Carthag#10", tokens=5)
    assert reply(shipped) == "Done: ship 5 tokens from your reserves to Carthag (game version 1)."
    await deliver(room.env)
    news = room.news(before)
    assert "The Atreides spring the Bene Tleilaxu trap on Carthag" in news["channel"]  # BT-31: announced at once
    assert "The Atreides ship 5 tokens to Carthag" in news["channel"]
    assert all(card not in text for text in news.values())  # the card stays face down

    before = room.screens()
    skipped = await bob.slash(room.channel, "play skip", step="shipment")
    assert reply(skipped) == "Done: ship nothing (game version 2)."
    await deliver(room.env)
    news = room.news(before)
    battle = await room.env.bot.service.state_of(f"g{room.channel.id}")
    victim = battle.battle.current.target_leader
    # BT-32: the battle round opens with the trap's attack on a random Atreides leader, announced to the table
    assert f"The trap on Carthag strikes {leader_name(victim)}" in news["channel"]
    # the Atreides see the card because the trap strikes an Atreides leader; nobody else yet
    assert f"Prescience: the trap on Carthag is {card}." in news["atreides"]
    assert card not in news["channel"] + news["harkonnen"]

    before = room.screens()
    defended = await alice.slash(room.channel, "play plan", dial=0, leader=leader_name(victim))
    assert reply(defended) == (f"Done: the battle plan: {leader_name(victim)}, dial 0, no weapon, no defense"
                               " (game version 3).")
    await deliver(room.env)
    news = room.news(before)
    # BT-33: revealed when it strikes; a Crysknife against no defense kills the leader and pays the BT
    assert f"Trap plans in Carthag: Bene Tleilaxu: no leader, dial 0, {card}" in news["channel"]
    strength = load_game_data().leader(victim).strength
    assert f"{leader_name(victim)} dies; the Bene Tleilaxu gain {strength} spice." in news["channel"]
    # the outcome is in the channel's battle post itself, not only in the turn's thread
    assert any(f"- The Bene Tleilaxu trap on {leader_name(victim)}: {leader_name(victim)} dies" in post.content
               for post in room.channel.history())


async def test_bt_23_a_traitor_reveal_is_announced_and_r_25_a_wrong_one_is_refused_to_the_bt_alone(room):
    state = at(position((A, H, BT), forces={ARRAKEEN: {A: 7}}, marked=[DUNCAN], victories=[stronghold_won()]),
               Phase.MOVEMENT)
    await room.play_from(state)
    carol = room.players[BT]
    before = room.screens()

    wrong = await carol.slash(room.channel, "bt reveal", leader="Gurney Halleck")
    assert wrong.ephemeral and reply(wrong).startswith("Refused: [R-25]")
    await deliver(room.env)
    assert room.news(before) == {place: "" for place in before}  # only the BT see the refusal

    revealed = await carol.slash(room.channel, "bt reveal", leader="Duncan Idaho")
    assert revealed.ephemeral and reply(revealed) == "Done: revealed Duncan Idaho (game version 1)."
    await deliver(room.env)
    news = room.news(before)
    assert ("The Bene Tleilaxu reveal Duncan Idaho as their traitor! He won Arrakeen for the Atreides: unless a "
            "Karama cancels the reveal") in news["channel"]
    assert "Gurney" not in news["channel"]
    # BT-51: every faction but the BT is asked in secret, by DM; the betrayal waits for the answers.
    window = "**Your decision: a Karama against the Bene Tleilaxu's traitor reveal** (rule BT-51; `/rules BT-51`)"
    assert window in news["atreides"] and window in news["harkonnen"] and window not in news["bene_tleilaxu"]
    assert "If nobody answers" in news["atreides"] and ": let the reveal stand." in news["atreides"]
    assert "bt reveal karama" not in news["atreides"] + news["harkonnen"]  # the engine's word for it (item 8)
    waiting = await room.env.bot.service.state_of(f"g{room.channel.id}")
    assert waiting.tokens_at(ARRAKEEN, A) == 7
    before = room.screens()
    for faction in (A, H):
        answered = await room.players[faction].slash(room.channel, "bt karama-reveal", answer="let it stand")
        assert answered.ephemeral and reply(answered).startswith("Done: the BT reveal: let it stand")
    await deliver(room.env)
    news = room.news(before)
    assert ("No Karama: Duncan Idaho goes to the tanks with the Atreides' 7 tokens in Arrakeen; the Bene Tleilaxu "
            "now control Arrakeen") in news["channel"]
    assert "**Your decision: your shipment" in news["atreides"]  # set aside, now asked again: the DM card calls
    assert room.players[A].mention not in news["channel"]  # and nothing else does (issue 26 item 0)
    after = await room.env.bot.service.state_of(f"g{room.channel.id}")
    assert after.bt.controlled == ["Arrakeen"] and after.tokens_at(ARRAKEEN, A) == 0


async def test_an_admin_correction_names_its_author_and_reason_and_the_amount_reaches_only_its_owner(table):
    alice, bob = table.players[A], table.players[H]
    before = table.screens()

    refused = await bob.slash(table.channel, "admin spice", faction="harkonnen", amount=30, reason="mine")
    assert reply(refused) == "Refused: Only a moderator (Manage Server, or the server's moderator role) may do this."
    corrected = await alice.slash(table.channel, "admin spice", faction="harkonnen", amount=30,
                                  reason="miscounted the bribe")
    assert corrected.ephemeral and reply(corrected) == "Spice corrected (game version 1)."
    await deliver(table.env)
    news = table.news(before)
    told = "Admin alice corrected the Harkonnen's spice (miscounted the bribe)."
    assert news["channel"].splitlines() == [f"- {told}", told]  # the setup's post, and its detail in the thread
    assert news["harkonnen"].endswith("Your spice was set to 30 by admin alice.")
    assert news["atreides"] == news["bene_tleilaxu"] == ""  # spice behind a shield stays secret

    mine = await bob.slash(table.channel, "me hand")
    assert mine.ephemeral and reply(mine).startswith("**Harkonnen**: 30 spice")
    theirs = await table.players[BT].slash(table.channel, "me hand")
    assert "30 spice" not in reply(theirs)


async def test_game_map_posts_the_tables_map_and_mine_shows_a_players_own_map_to_them_alone(table):
    before = table.screens()
    shown = await table.dave.slash(table.channel, "game map")
    posted = answered(shown)
    assert not posted.ephemeral and [a.filename for a in posted.attachments] == [f"g{table.channel.id}-turn0.png"]
    assert (await posted.attachments[0].read()).startswith(b"\x89PNG")

    own = await table.players[BT].slash(table.channel, "game map", mine=True)
    private = answered(own)
    assert private.ephemeral and len(private.attachments) == 1
    refused = await table.dave.slash(table.channel, "game map", mine=True)
    assert refused.ephemeral and reply(refused).startswith("Refused: You have no seat in this game")
    # the table's map is in the channel for everyone; the BT's own map is not
    assert len(table_messages(table.channel, table.players[H])) == len(before["channel"]) + 1


async def test_a_player_whose_dms_are_closed_is_told_in_the_channel_to_use_me_prompts(table):
    bob = table.players[H]
    before = table.screens()
    table.env.inject_error("POST", f"/channels/{bob.user.dm_channel.id}/messages", status=403, code=50007,
                           message="Cannot send messages to this user", times=None)
    corrected = await table.players[A].slash(table.channel, "admin spice", faction="harkonnen", amount=12,
                                             reason="recount")
    assert reply(corrected) == "Spice corrected (game version 1)."
    await deliver(table.env)
    assert table.news(before)["harkonnen"] == ""
    await table.env.advance_time(DRAIN_INTERVAL)  # the notice about the refused DM goes out with the next drain
    news = table.news(before)
    assert news["harkonnen"] == ""
    assert "The bot cannot DM the harkonnen player" in news["channel"] and "/me prompts" in news["channel"]
    assert "12" not in news["channel"]  # the undelivered secret does not go to the table instead
    mine = await bob.slash(table.channel, "me hand")
    assert mine.ephemeral and reply(mine).startswith("**Harkonnen**: 12 spice")


async def test_autocomplete_offers_each_member_only_what_they_may_play_now(room):
    """A card is offered only when its play is legal now for the caller: no battle plan is open, so no weapon
    (tests/test_discord_e2e_battle.py: when one is); a Karama only from the caller's own hand."""
    state = bidding_with_a_gift_to_make()
    await room.play_from(state)
    for faction, member in room.players.items():
        assert await member.autocomplete(room.channel, "play plan", "weapon", "") == []
        karamas = await member.autocomplete(room.channel, "card karama", "card", "")  # only what is legal now
        assert [c["value"] for c in karamas] == [c for c in state.faction(faction).hand if c.startswith("karama")]
    assert await room.dave.autocomplete(room.channel, "play plan", "weapon", "") == []
    assert await room.dave.autocomplete(room.channel, "card karama", "card", "") == []
    # no shipment is asked of the Atreides now: no place is offered (tests/test_discord_e2e_turn.py: when it is)
    assert await room.players[A].autocomplete(room.channel, "play ship", "to", "carth") == []


async def test_a_send_cut_off_by_a_crash_is_found_in_the_history_and_not_sent_again(table):
    """Issue 15, exactly once to the post: a row marked as being sent whose send arrived is found in the channel's
    or the DM's recent history (by the bot, since the send began, the same words); one that never arrived is
    not, and is sent. An edit already made is not made twice."""
    env = table.env
    gateway = env.bot.gateway
    game = await env.bot.service.store.game_in_channel(table.channel.id)
    since = env.now()
    post = OutgoingMessage(recipient=Recipient(channel=True), text="The spice must flow.", outbox_id=901)
    dm = OutgoingMessage(recipient=Recipient(faction=A.value), text="A secret for you.", outbox_id=902)
    assert await gateway.find(game, post, since) is None and await gateway.find(game, dm, since) is None
    post_ref, dm_ref = await gateway.deliver(game, post), await gateway.deliver(game, dm)
    assert await gateway.find(game, post, since) == post_ref and await gateway.find(game, dm, since) == dm_ref
    other = OutgoingMessage(recipient=Recipient(faction=H.value), text="A secret for you.", outbox_id=903)
    assert await gateway.find(game, other, since) is None  # the same words elsewhere are not this send

    closing = OutgoingMessage(recipient=Recipient(faction=A.value), text="**Closed.**", edit_of="card:p1",
                              edit_ref=dm_ref)
    assert await gateway.find(game, closing, since) is None
    await gateway.deliver(game, closing)
    assert await gateway.find(game, closing, since) == dm_ref
    await gateway.deliver(game, closing)  # again, as after a crash: the line is not added twice
    [shown] = [m for m in table.players[A].user.dm_channel.history() if m.content.startswith("**Dune in")
               and "A secret for you." in m.content]
    assert shown.content.count("**Closed.**") == 1
