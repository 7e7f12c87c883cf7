"""`make demo` (bot/console/demo.py): a game played by automatic players through the service and the console
front, leaving the channel feed, each faction's inbox, the game file and the maps. Here a 2-turn game."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from bot.app.decision_cards import CARD_HEADING
from bot.app.render import without_own_choice_echoes
from bot.console.demo import BT_OPTIONS, options_text
from bot.console.demo import main as demo_main
from bot.console.gateway import CLOSED_PREFIX
from engine.__main__ import main as engine_main
from engine.checks.autoplay import BT_COUNTS, bt_counts
from engine.game import apply, new_game
from engine.ids import Faction
from engine.model import Phase
from engine.names import faction_name
from engine.record import load_record, replay, replay_steps

TURNS = 2


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = demo_main(["--seed", "5", "--out", str(out), "--turns", str(TURNS), "--store", "memory"])
    return out, status, printed.getvalue()


def _lines(path: Path) -> set[str]:
    return {line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def _cards_and_lines(path: Path) -> tuple[list[str], set[str]]:
    """A DM file's decision cards (and their closing lines), and the lines of every other message."""
    messages = [m for m in path.read_text(encoding="utf-8").split("\n\n") if m.strip()]
    cards = [m for m in messages if m.startswith(CARD_HEADING)]
    rest = [m for m in messages if not m.startswith(CARD_HEADING) and not m.startswith(CLOSED_PREFIX)]
    return cards, {line for m in rest for line in m.splitlines() if line.strip()}


def _prompt_owners(record) -> dict[str, Faction]:
    """Which faction each decision of the game was asked of."""
    state, _ = new_game(record.setup)
    owners = {p.id: p.faction for p in state.prompts}
    for action in record.actions:
        state, _ = apply(state, action)
        owners.update({p.id: p.faction for p in state.prompts if p.id not in owners})
    return owners


def test_the_demo_plays_a_whole_game_with_the_bt_and_every_bt_option(demo):
    out, status, report = demo
    record = load_record(out / "game.json")
    state, events = replay(record.setup, record.actions)
    assert status == 0
    assert record.setup.factions == tuple(Faction) and Faction.BENE_TLEILAXU in record.setup.factions
    assert all(getattr(record.setup.options, name) for name in BT_OPTIONS) and BT_OPTIONS
    assert state.phase == Phase.ENDED and state.turn == TURNS
    ending = next(e.message for e in events if e.type == "game_over")
    assert f"Turns played: {TURNS}." in report and f"Why: {ending}" in report
    winners = " and ".join(faction_name(f) for f in state.winners) or "nobody"
    assert f"Winner: {winners}." in report
    assert f"Actions: {len(record.actions)}." in report
    used = bt_counts(events)
    assert "Bene Tleilaxu powers used: " + ", ".join(
        f"{name.replace('_', ' ')} {used[name]}" for name in BT_COUNTS) + "." in report
    assert used["traps_laid"] > 0  # BT-30: the traps option is played
    assert "Wall time:" in report


def test_the_demo_writes_the_channel_the_inboxes_the_game_and_a_map_per_turn(demo):
    out, _, report = demo
    assert engine_main(["replay", str(out / "game.json")]) == 0
    for faction in Faction:
        assert (out / f"dm-{faction.value}.txt").stat().st_size > 0
    channel = (out / "channel.txt").read_text(encoding="utf-8")
    for announcement in ("A game of Dune begins with Atreides", "**Turn 1 · Storm.**", "**Turn 2 · Bidding.**",
                         "The game ends on turn 2.", "The game is over. What was secret:"):
        assert announcement in channel
    posts = int(re.search(r"Channel posts: (\d+)\.", report).group(1))
    assert TURNS <= posts <= (TURNS + 1) * 12  # issue 14: a post per phase, the detail in each turn's thread
    maps = sorted(p.name for p in out.glob("map-*.png"))
    assert maps == ["map-end.png"] + [f"map-turn-{turn:02d}.png" for turn in range(1, TURNS + 1)]
    assert all((out / name).read_bytes().startswith(b"\x89PNG") for name in maps)


def test_each_inbox_holds_its_own_secrets_and_no_other_factions(demo):
    out, _, _ = demo
    record = load_record(out / "game.json")
    steps = list(replay_steps(record.setup, record.actions))
    events = [e for step in steps for e in step.events]
    # what the actor reads where they acted (their answer restated to them alone) is not DMed to them again
    told = steps[0].events + [e for step, action in zip(steps[1:], record.actions, strict=True)
                              for e in without_own_choice_echoes(step.events, action)]
    public = {e.message for e in events if e.public}
    owners = _prompt_owners(record)
    for faction in Faction:
        cards, received = _cards_and_lines(out / f"dm-{faction.value}.txt")
        mine = {e.message for e in told if not e.public and faction in e.audience}
        assert received == mine, faction
        others = {e.message for e in events if not e.public and faction not in e.audience} - mine - public
        assert not received & others, faction
        assert len(cards) == sum(owner == faction for owner in owners.values()), faction  # a card per decision
    before_the_end = (out / "channel.txt").read_text(encoding="utf-8").split("The game is over.")[0]
    secrets_only = {e.message for e in events if not e.public} - public
    assert not set(before_the_end.splitlines()) & secrets_only


def test_options_text_keeps_the_bt_options_and_adds_the_last_turn():
    assert options_text(None, 3) == ",".join(BT_OPTIONS) + ",turns=3"
    assert "weather" in options_text("all", None) and "bt_traps" in options_text("all", None)
    assert options_text("bt_traps", None) == "bt_traps"


def test_the_demo_plays_the_same_game_through_the_sqlite_store(tmp_path):
    """A one-turn game through a temporary SQLite file, as the bot stores games: the same actions, final
    state, channel and inboxes as the same game through the memory store."""
    with contextlib.redirect_stdout(io.StringIO()):
        assert demo_main(["--seed", "5", "--out", str(tmp_path), "--turns", "1", "--store", "sqlite"]) == 0
        assert demo_main(["--seed", "5", "--out", str(tmp_path / "memory"), "--turns", "1"]) == 0
    on_sqlite, in_memory = load_record(tmp_path / "game.json"), load_record(tmp_path / "memory" / "game.json")
    assert on_sqlite.actions == in_memory.actions and on_sqlite.state_hash == in_memory.state_hash
    assert engine_main(["replay", str(tmp_path / "game.json")]) == 0
    for name in ["channel.txt", *(f"dm-{f.value}.txt" for f in Faction)]:
        assert (tmp_path / name).read_text() == (tmp_path / "memory" / name).read_text(), name


def test_an_unknown_option_is_refused_with_the_list_and_writes_nothing(tmp_path):
    with pytest.raises(SystemExit) as refusal:
        demo_main(["--out", str(tmp_path / "demo"), "--options", "bt_trapz"])
    assert "Unknown option 'bt_trapz'" in str(refusal.value) and "bt_traps" in str(refusal.value)
    assert not (tmp_path / "demo").exists()
