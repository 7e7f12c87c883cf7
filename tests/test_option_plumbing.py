"""Choosing the options of a game (A-15 and the rest): `/game new options`, its autocomplete, `/game status`,
the console's `--options`, and `python -m engine autoplay --options`."""

from __future__ import annotations

import pytest

from bot.app.lobby import options_text, parse_options
from bot.app.service import GameService
from bot.app.words import NotUnderstood
from bot.console.__main__ import main as console_main
from bot.console.gateway import ConsoleGateway
from bot.console.repl import Console
from bot.discord.text import option_suggestions, status_text
from bot.store.memory import MemoryGameStore
from engine.__main__ import _parse_options as autoplay_options
from engine.game import new_game
from engine.ids import Faction
from engine.options import GameOptions, GameSetup
from engine.secrecy.views import view

NON_COMBAT = ("character_advantages", "special_karama_powers", "weather", "double_spice_blow", "increased_spice_flow")

ON_BY_DEFAULT = "bt_traps, bt_worthless_impairers, bt_give_cards, pass_is_final"  # engine/options.py GameOptions


def test_game_new_switches_options_on_by_name():
    options = parse_options("weather, double_spice_blow")
    assert options.weather and options.double_spice_blow
    assert options.model_copy(update={"weather": False, "double_spice_blow": False}) == GameOptions()


def test_game_new_all_turns_every_switch_on_and_name_value_still_works():
    options = parse_options("all, bt_traps=off, turns=10")
    assert all(getattr(options, name) for name in (*NON_COMBAT, "advanced_combat", "choam_charity", "bt_give_cards"))
    assert not options.bt_traps and options.turns == 10


@pytest.mark.parametrize("text", ["wether", "turns", "weather=maybe", "turns=x"])
def test_game_new_refuses_unknown_or_malformed_options(text):
    with pytest.raises(NotUnderstood) as refusal:
        parse_options(text)
    assert "weather" in str(refusal.value) or "Option" in str(refusal.value)


def test_the_options_autocomplete_completes_the_last_name():
    assert option_suggestions("") [:2] == ["all", "bt_traps"]
    assert option_suggestions("weather,dou") == ["weather,double_spice_blow"]
    assert "weather,weather" not in option_suggestions("weather,")
    assert all(len(s) <= 100 for s in option_suggestions("x" * 120 + ","))


def test_status_lists_the_games_options():
    state = new_game(GameSetup(factions=(Faction.ATREIDES, Faction.FREMEN),
                               options=parse_options("weather,increased_spice_flow"))).state
    table = view(state, None)
    assert table.options.weather

    class Row:  # the few fields status_text reads from a game record
        game_id, seq, seats, settings = "g1", 0, {}, {}
        status = type("S", (), {"value": "open"})()

    text = status_text(Row(), table)
    assert f"Options: {ON_BY_DEFAULT}, weather, increased_spice_flow on, the others off" in text
    assert options_text(GameOptions()) == (f"{ON_BY_DEFAULT} on, the others off; max_alliance_size=2, "
                                           "alliance_strongholds_to_win=4, turns=15 (the defaults)")
    assert options_text(GameOptions(bt_traps=False, bt_worthless_impairers=False, bt_give_cards=False,
                                    pass_is_final=False)).startswith("every option off; ")


def test_console_and_autoplay_accept_all_like_game_new():
    assert parse_options("all") == autoplay_options("all") == GameOptions.all_on()
    assert autoplay_options("weather,double_spice_blow") == parse_options("weather double_spice_blow")


async def test_the_console_options_flag_sets_the_options_of_new():
    lines: list[str] = []
    console = Console(GameService(MemoryGameStore()), ConsoleGateway(lines.append), out=lines.append,
                      default_options=parse_options("weather,double_spice_blow"))
    await console.resume()
    assert await console.execute("new atreides,fremen --seed 3")
    assert await console.execute("status")
    assert f"Options: {ON_BY_DEFAULT}, weather, double_spice_blow on" in lines[-1]


def test_the_console_refuses_bad_options_at_the_command_line(capsys):
    assert console_main(["--options", "wether"]) == 2
    assert "wether" in capsys.readouterr().err


# --- through the Discord cogs (fake interactions, no network) -----------------------------------------------------


@pytest.fixture
async def bot():
    from bot.discord.client import MentatBot

    bot = MentatBot(GameService(MemoryGameStore()))
    await bot.add_cogs()
    return bot


async def test_game_new_lists_the_options_and_status_shows_them(bot):
    from tests.helpers.discord_fakes import FakeInteraction

    game = bot.get_cog("GameCog")
    opening = FakeInteraction(bot, 101)
    await game.new.callback(game, opening, factions="atreides, fremen", options="weather, double_spice_blow", seed=7)
    [lobby] = [row.message.text for row in await bot.service.store.pending_outbox() if row.message.key == "lobby"]
    assert f"Options: {ON_BY_DEFAULT}, weather, double_spice_blow on" in lobby
    assert (await bot.service.state_of("g55")).setup.options.weather
    asked = FakeInteraction(bot, 999)
    await game.status.callback(game, asked)
    assert f"Options: {ON_BY_DEFAULT}, weather, double_spice_blow on" in asked.answers[0][0]
    assert "Pace: daily" in asked.answers[0][0]  # /game new's default pace
    choices = await game._options_autocomplete(FakeInteraction(bot, 101), "weather,dou")
    assert [c.value for c in choices] == ["weather,double_spice_blow"]


async def test_a_special_karama_command_without_the_option_is_refused_with_its_rule(bot):
    from tests.helpers.discord_fakes import FakeInteraction

    game = bot.get_cog("GameCog")
    await game.new.callback(game, FakeInteraction(bot, 101), factions="atreides, fremen", options=None, seed=7)
    for faction, user in (("atreides", 101), ("fremen", 103)):
        await game.join.callback(game, FakeInteraction(bot, user), faction=faction)
    await game.start.callback(game, FakeInteraction(bot, 101))
    card = bot.get_cog("CardCog")
    asked = FakeInteraction(bot, 103)
    await card.special_karama.callback(card, asked, card="karama_1", territory="Funeral Plain")
    text, ephemeral = asked.answers[0]
    assert ephemeral and text.startswith("Refused: [A-14]") and await bot.service.store.actions("g55") == []
