"""`make playthrough` (tests/playthrough.py), shortened: a 2-turn game with the seven factions, the BT and every
option, played in SimCord by random players through the controls the bot offers, and its JSON summary.

What holds today is asserted: the game finishes, the bot raises nothing, the players answer cards, every card
answered is closed afterwards, and the channel never shows a card. The admin interventions and the refusals
are reported, not asserted: they fall as the decisions gain controls (issue 13's acceptance is 0 for both).
"""

from __future__ import annotations

import contextlib
import io
import json
import random

import discord
import pytest
import simcord
from discord.ext import commands
from simcord.types import HttpLogEntry

from bot.app.decision_cards import CARD_HEADING
from bot.app.render import messages_for
from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.discord.prompt_forms import form_for
from bot.store.memory import MemoryGameStore
from engine.actions import AskPrescience
from engine.game import apply
from engine.model import GameState, Phase, PromptKind
from engine.names import faction_does
from tests.conftest import BG, BT, A, H, enter_phase, prompt_of, store_running_game
from tests.helpers.positions.battle import FLAT, arena, give, put
from tests.helpers.positions.optional_combat import switch_on
from tests.playthrough import (
    INTERACTION_KINDS,
    MAX_PAGE_TURNS,
    WAKE,
    Summary,
    Table,
    count_requests,
    enabled,
    kind_of,
    main,
    seat_the_table,
)

TURNS = 2
SHAPE = {"finished", "turns", "winner", "interactions", "admin_interventions", "admin_interventions_by_kind",
         "offered_choice_refused", "typed_values", "modal_values", "channel_posts", "channel_posts_per_turn", "dms",
         "seconds", "standing_orders_set", "standing_order_answers", "mentions", "reminders"}


@pytest.fixture(scope="module")
def run() -> tuple[int, list[str]]:
    printed, progress = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(progress):
        status = main(["--seed", "1", "--turns", str(TURNS)])
    return status, printed.getvalue().splitlines()


@pytest.fixture(scope="module")
def summary(run) -> dict:
    return json.loads(run[1][-1])


def test_the_summary_is_the_last_line_of_stdout_with_every_figure_the_issue_asks_for(run, summary):
    status, _ = run
    assert status == 0
    assert set(summary) >= SHAPE
    assert set(summary["interactions"]) == set(INTERACTION_KINDS)
    assert summary["factions"] == ["atreides", "bene_gesserit", "emperor", "fremen", "guild", "harkonnen",
                                   "bene_tleilaxu"]
    assert summary["options"] == f"all, turns={TURNS}"


def test_a_short_game_with_every_option_is_played_to_its_end_through_the_bots_controls(summary):
    assert summary["finished"] and summary["stopped"] == "game over"
    assert 1 <= summary["turns"] <= TURNS
    assert set(summary["winner"]) <= set(summary["factions"])
    assert summary["bot_errors"] == 0, summary["first_bot_errors"]
    # the players pressed the cards' controls and answered cards; the moderator set the game up by slash commands
    assert summary["interactions"]["click"] > 0 and summary["cards_answered"] > 0
    assert summary["interactions"]["slash"] >= 1 + 7 + 1  # /game new, seven /game join, /game start
    assert summary["typed_values"] == 0  # the players never type a value a menu does not offer


def test_the_players_set_their_standing_orders_and_the_orders_answered_for_them(summary):
    """Every player ordered "always call when I can" (and most "never" for storm cards) with /me orders; turn 2's
    storm window was answered by those orders, each a line in its owner's DMs."""
    assert summary["standing_orders_set"] >= len(summary["factions"])
    assert summary["standing_order_answers"] > 0


def test_each_decision_calls_its_decider_by_its_dm_card_alone_and_no_post_could_ping_anyone_else(summary):
    """Issue 14 and issue 26 item 0: every post of the channel and its threads allows exactly the players it
    calls (no role, no @everyone); each player got their decision cards by DM and, their DMs open, was called for
    none of them in the channel (one notification per decision)."""
    assert summary["mention_faults"] == []
    assert summary["mentions_by_faction"] == {}
    assert set(summary["cards_by_faction"]) == set(summary["factions"])
    assert all(cards > 0 for cards in summary["cards_by_faction"].values())


def test_every_card_answered_was_closed_and_no_card_reached_the_channel(summary):
    assert summary["answered_cards_left_open"] == 0
    assert summary["cards_in_channel"] == 0


def test_the_counts_add_up(summary):
    assert summary["admin_interventions"] == sum(summary["admin_interventions_by_kind"].values())
    assert summary["offered_choice_refused"] == sum(summary["offered_choice_refused_by_kind"].values())
    assert summary["channel_posts"] == sum(summary["channel_posts_per_turn"].values())
    assert set(summary["channel_posts_per_turn"]) == {str(t) for t in range(summary["turns"] + 1)}
    assert summary["dms"] >= summary["cards_answered"]


def test_the_bots_requests_are_counted_per_interaction_per_turn_and_by_route(summary):
    """Issue 24 item 8: every request SimCord logged is in each count once."""
    requests = summary["requests"]
    assert requests["per_interaction"]["n"] == sum(summary["interactions"].values())
    assert sum(requests["by_turn"].values()) == sum(requests["by_route"].values()) == requests["total"] > 0
    assert set(requests["by_turn"]) == {str(t) for t in range(summary["turns"] + 1)}
    assert requests["per_turn"]["max"] == max(n for t, n in requests["by_turn"].items() if t != "0")
    assert requests["by_route"]["POST /interactions/{id}/{token}/callback"] == requests["per_interaction"]["n"]
    assert not any(part.isdigit() for route in requests["by_route"] for part in route.split("/"))


def test_requests_count_to_the_interaction_that_woke_them_and_the_turn_whose_storm_post_they_follow():
    def request(method: str, path: str, content: str | None = None) -> HttpLogEntry:
        return HttpLogEntry(method, path, {}, {"content": content} if content else None, None)

    log = [request("POST", "/interactions/11/simcord_interaction_11/callback"),  # the lobby: turn 0
           request("POST", "/channels/5/messages", "The game has started."),
           request("POST", "/interactions/12/simcord_interaction_12/callback"),
           request("POST", "/channels/5/messages", "**Turn 1 · Storm.** The storm moves 3 sectors."),
           request("GET", "/channels/5/messages/99"),
           request("PATCH", "/channels/5/messages/99", "**Turn 1 · Storm.** The storm moves 3 sectors.\nmore"),
           request("POST", "/interactions/13/simcord_interaction_13/callback"),
           request("POST", "/channels/5/messages", "**Turn 2 · Storm.**")]
    counted = count_requests(log, [(0, "slash"), (2, "click"), (6, "click")])

    assert counted["per_interaction"] == {"mean": 2.7, "max": 4, "n": 3}
    assert counted["per_interaction_by_kind"] == {"slash": {"mean": 2.0, "max": 2, "n": 1},
                                                  "click": {"mean": 3.0, "max": 4, "n": 2}}
    assert counted["by_turn"] == {"0": 3, "1": 4, "2": 1} and counted["turn_0"] == 3
    assert counted["per_turn"] == {"mean": 2.5, "max": 4, "n": 2}
    assert counted["by_route"] == {"POST /channels/{id}/messages": 3, "POST /interactions/{id}/{token}/callback": 3,
                                   "GET /channels/{id}/messages/{id}": 1, "PATCH /channels/{id}/messages/{id}": 1}


def test_through_the_discord_model_a_short_weekly_game_lets_20_minutes_pass_after_each_answer_and_counts_the_losses():
    """Issue 24: the game played through tests/discord_model.py (--model), one turn."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
        status = main(["--seed", "1", "--turns", "1", "--model"])
    summary = json.loads(printed.getvalue().splitlines()[-1])
    model = summary["model"]
    assert status == 0 and summary["finished"] and summary["bot_errors"] == 0, summary["first_bot_errors"]
    assert (model["pace"], model["gap_seconds"]) == ("weekly", 1200.0)
    assert model["virtual_days"] * 86400 >= summary["cards_answered"] * 1200 - 0.05 * 86400  # (days rounded)
    assert model["requests_served"] > 0
    assert (model["unanswered_interactions"], model["tokens_used_late"]) == (0, 0)
    assert set(model) >= {"lost_lines", "refused_by_the_model", "rate_limited"}


# --- the players' hands on controls the short game may not show -------------------------------------------


class AlwaysTurning(random.Random):
    """A player who turns a long menu's page whenever the harness lets them (PAGE_TURN_ODDS)."""

    def random(self) -> float:
        return 0.0


async def test_a_long_menus_pages_are_turned_and_a_choice_made_on_the_page_shown():
    """The Bene Gesserit prediction of a 30-turn game: its turn menu has two pages (bot/discord/components.py)."""
    bot = MentatBot(GameService(MemoryGameStore(clock=discord.utils.utcnow), clock=discord.utils.utcnow))
    summary = Summary(seed=3, factions=["bene_gesserit", "harkonnen", "bene_tleilaxu"], options="turns=30")
    async with simcord.run(bot) as env:
        table = await seat_the_table(env, [BG, H, BT], 3, "turns=30", summary)
        table.rng = AlwaysTurning()
        [card] = [i for i in table.open_cards(BG) if kind_of(table.screens[BG].heading_of(i)) == "bg_prediction"]
        await table.answer_card(BG, card)
        state = await bot.service.state_of((await bot.service.store.game_in_channel(table.channel.id)).game_id)
        closed = table.screens[BG].message(card)

    # one choice of winner, MAX_PAGE_TURNS turns of the turn menu's page, one choice of turn, then Submit
    assert (summary.interactions["select"], summary.interactions["click"]) == (1 + MAX_PAGE_TURNS + 1, 1)
    assert summary.cards_answered == 1 and summary.offered_choice_refused == 0
    assert state.bg_prediction is not None and 1 <= state.bg_prediction.turn <= 30
    predicted = state.bg_prediction
    assert closed.content.endswith(f"**You answered: predict that {faction_does(predicted.faction, 'win')} on turn "
                                   f"{predicted.turn}.**") and not enabled(closed)


class AmountCard(discord.ui.View):
    """A card with an amount, as the bot will offer one for a bid: a button whose modal asks for a number in the
    range both write (no decision offers one yet: this stand-in bot does)."""

    def __init__(self, typed: list[str]):
        super().__init__(timeout=None)
        self.typed = typed

    @discord.ui.button(label="Other amount (3 to 9)", custom_id="amount")
    async def amount(self, interaction: discord.Interaction, _button: discord.ui.Button) -> None:
        modal = discord.ui.Modal(title="Your bid")
        field = discord.ui.TextInput(label="Your bid (3 to 9)", custom_id="value")
        modal.add_item(field)

        async def submitted(answered: discord.Interaction) -> None:
            self.typed.append(field.value)
            await answered.response.send_message(f"Done: you bid {field.value}.", ephemeral=True)

        modal.on_submit = submitted
        await interaction.response.send_modal(modal)


async def test_an_amount_is_typed_into_the_modal_within_the_range_it_writes():
    typed: list[str] = []
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.none())

    @bot.tree.command(name="deal")
    async def deal(interaction: discord.Interaction) -> None:
        await interaction.user.send(f"{CARD_HEADING}a bid**", view=AmountCard(typed))
        await interaction.response.send_message("sent", ephemeral=True)

    summary = Summary(seed=1, factions=["atreides"], options="")
    async with simcord.run(bot) as env:
        await bot.tree.sync()
        guild = env.create_guild()
        channel = guild.create_text_channel("dune")
        player = guild.add_member(env.create_user("atreides-player"))
        table = Table(env, channel, guild.add_member(env.create_user("moderator")), {A: player}, summary,
                      random.Random(1))
        await player.slash(channel, "deal")
        [card] = table.open_cards(A)
        await table.answer_card(A, card)

    assert len(typed) == 1 and 3 <= int(typed[0]) <= 9
    assert summary.interactions["click"] == summary.interactions["modal"] == summary.modal_values == 1
    assert summary.typed_values == 0 and summary.cards_answered == 1


def atreides_planning_in_five_parts() -> GameState:
    """An Atreides battle plan with every part: a leader, a weapon and a defense (one part: the pairs), the dial,
    the awakened Kwisatz Haderach (A-15 `character_advantages`) and the spice backing the dial (A-15
    `advanced_combat`): a form of five parts, shown four at a time (bot/discord/form_core.py MAX_FIELDS)."""
    state = arena((A, H, BT))
    switch_on(state, character_advantages=True, advanced_combat=True)
    state.kwisatz_haderach.active = True
    give(state, A, "crysknife", "shield_1")
    put(state, A, FLAT, 5)
    put(state, H, FLAT, 5)
    state = apply(enter_phase(state, Phase.BATTLE)[0], AskPrescience(faction=A)).state
    assert [f.name for f in form_for(prompt_of(state, A, PromptKind.BATTLE_PLAN)).fields] == [
        "Leader", "Weapon + defense", "Dial", "Kwisatz Haderach", "Spice"]
    return state


async def test_a_form_of_more_parts_than_one_card_shows_is_filled_window_after_window():
    bot = MentatBot(GameService(MemoryGameStore(clock=discord.utils.utcnow), clock=discord.utils.utcnow))
    summary = Summary(seed=1, factions=["atreides", "harkonnen", "bene_tleilaxu"], options="")
    state = atreides_planning_in_five_parts()
    async with simcord.run(bot) as env:
        await bot.tree.sync()
        guild = env.create_guild()
        channel = guild.create_text_channel("dune")
        players = {f: guild.add_member(env.create_user(f"{f.value}-player")) for f in (A, H, BT)}
        table = Table(env, channel, guild.add_member(env.create_user("moderator")), players, summary,
                      random.Random(1))
        game_id = await store_running_game(bot.service.store, state, {f: m.id for f, m in players.items()},
                                           channel_id=channel.id, guild_id=guild.id)
        await bot.service.store.queue(game_id, messages_for([], None, state))
        bot.wake_outbox()
        await env.advance_time(WAKE)
        [card] = [i for i in table.open_cards(A) if kind_of(table.screens[A].heading_of(i)) == "battle_plan"]
        await table.answer_card(A, card)

    # every part chosen, in both windows: "More choices" pressed once, then Submit (and "Back" perhaps)
    assert summary.interactions["select"] == 5
    assert 2 <= summary.interactions["click"] <= 3
    # whatever was chosen at random among what the parts offered, the plan was accepted
    assert summary.cards_answered == 1 and summary.offered_choice_refused == 0
