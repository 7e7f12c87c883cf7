"""The console front (`python -m bot.console`): hot-seat play through the same service and stores as the bot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.app.decision_cards import CARD_HEADING
from bot.app.render import without_own_choice_echoes
from bot.app.service import GameService
from bot.console.__main__ import main as console_main
from bot.console.gateway import CHANNEL_PREFIX, CLOSED_PREFIX, ConsoleGateway
from bot.console.repl import Console
from bot.store.memory import MemoryGameStore
from engine.__main__ import main as engine_main
from engine.actions import parse_action
from engine.game import apply
from engine.ids import Faction
from engine.model import PromptKind
from engine.names import faction_name, leader_name
from engine.options import GameSetup
from engine.record import replay, replay_steps

A, F, BT = Faction.ATREIDES, Faction.FREMEN, Faction.BENE_TLEILAXU
ROOT = Path(__file__).resolve().parent.parent
NEW = "new atreides,fremen,bt --seed 7"


async def _console(store=None):
    lines: list[str] = []
    console = Console(GameService(store or MemoryGameStore()), ConsoleGateway(lines.append), out=lines.append)
    await console.resume()
    return console, lines


async def _run(console, *commands):
    for command in commands:
        assert await console.execute(command), f"{command!r} was refused"


def _channel(lines):
    """What the table reads: the channel's posts and its turn threads' ("[#game > Turn 3] ...")."""
    return [line.partition("] ")[2] for line in lines if line.startswith(CHANNEL_PREFIX[:6])]


async def _snapshot(console):
    row = await console.service.store.load_game("g1")
    return row.seq, row.state_json, len(await console.service.store.actions("g1"))


@pytest.fixture
async def started():
    console, lines = await _console()
    await _run(console, NEW, "start")
    return console, lines


@pytest.fixture
async def played(started):
    """A 3-faction game with the BT: one traitor picked with `do`, one with `default`, then `auto 200`."""
    console, lines = started
    state = await console.service.state_of("g1")
    dealt = {p.faction: list(p.options) for p in state.prompts if p.kind == PromptKind.TRAITOR_PICK}
    dms_at_start = {faction: list(texts) for faction, texts in console.gateway.inboxes.items()}
    await _run(console, "do " + json.dumps({"type": "choose_traitor", "leader": dealt[A][1]}),
               "as fremen", "default", "auto 200")
    return SimpleNamespace(console=console, lines=lines, dealt=dealt, dms_at_start=dms_at_start)


def _script(tmp_path, text, name="script.txt"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- (a) channel output -------------------------------------------------------------------------


async def test_the_channel_shows_the_setup_and_the_phases(played):
    channel = "\n".join(_channel(played.lines))
    for announcement in ("A game of Dune is open: Atreides, Fremen, Bene Tleilaxu.",
                         "A game of Dune begins with Atreides, Fremen, Bene Tleilaxu",
                         "Traitor picks: asked of 2 (Atreides, Fremen)", "Traitor picks: all answered.",
                         "Setup is complete", "**Turn 1 · Storm.**", "**Turn 1 · Spice blow.**",
                         "**Turn 1 · Bidding.**", "**Turn 2 · Storm.**"):
        assert announcement in channel
    assert CARD_HEADING not in channel
    assert any(line.startswith("auto: 200 decision(s) taken") for line in played.lines)


# --- (b) DMs: each inbox holds its own secrets, all of them, and nothing else --------------------


async def test_the_opening_dms_name_only_the_factions_own_traitor_choices(played):
    atreides = "\n".join(played.dms_at_start["atreides"])
    fremen = "\n".join(played.dms_at_start["fremen"])
    assert all(leader_name(t) in atreides for t in played.dealt[A])
    assert all(leader_name(t) in fremen for t in played.dealt[F])
    assert not any(leader_name(t) in atreides for t in played.dealt[F])
    assert not any(leader_name(t) in fremen for t in played.dealt[A])
    assert "traitor" not in "\n".join(played.dms_at_start["bene_tleilaxu"]).lower()  # BT-1: no traitors dealt


async def test_every_inbox_matches_the_engines_private_events_exactly(played):
    store = played.console.service.store
    row = await store.load_game("g1")
    actions = [parse_action(a.action_json) for a in await store.actions("g1")]
    steps = list(replay_steps(GameSetup.model_validate_json(row.setup_json), actions))
    events = [e for step in steps for e in step.events]
    # what the actor reads where they acted (their answer restated to them alone) is not DMed to them again
    told = steps[0].events + [e for step, action in zip(steps[1:], actions, strict=True)
                              for e in without_own_choice_echoes(step.events, action)]
    public = {e.message for e in events if e.public}
    for faction in (A, F, BT):
        mine = {e.message for e in told if not e.public and faction in e.audience}
        texts = played.console.gateway.inboxes[faction.value]
        received = {line for text in texts if not text.startswith((CARD_HEADING, CLOSED_PREFIX))
                    for line in text.splitlines()}
        assert received == mine, faction
        others = {e.message for e in events if not e.public and faction not in e.audience} - mine - public
        assert not received & others
    secrets_only = {e.message for e in events if not e.public} - public
    assert not set(_channel(played.lines)) & secrets_only


async def test_inbox_prints_and_clears_and_view_shows_only_own_secrets(played):
    console, lines = played.console, played.lines
    state = await console.service.state_of("g1")
    await _run(console, "as atreides")
    del lines[:]
    await _run(console, "view")
    shown = "\n".join(lines)
    secrets = shown[shown.index("Your secrets (Atreides)"):]
    assert f"spice {state.faction(A).spice}" in secrets
    assert all(leader_name(t) in secrets for t in state.faction(A).traitors)
    assert not any(leader_name(t) in secrets for t in state.faction(F).traitors)
    del lines[:]
    await _run(console, "table")
    assert "Your secrets" not in "\n".join(lines) and "Turn order:" in "\n".join(lines)
    del lines[:]
    await _run(console, "inbox")
    assert lines[0].startswith("Inbox of Atreides:") and "Choose one traitor to keep from" in "\n".join(lines)
    await _run(console, "inbox atreides")
    assert lines[-1] == "Inbox of Atreides: 0 message(s)."


# --- (c) refusals name the rule and change nothing ----------------------------------------------


async def test_an_illegal_action_prints_the_rule_and_changes_nothing(started):
    console, lines = started
    before = await _snapshot(console)
    assert not await console.execute('do {"type":"choose_traitor","leader":"nobody"}')
    assert lines[-1].startswith("refused: [Setup: traitors]") and "Allowed:" in lines[-1]
    assert not await console.execute('do {"type":"bid","amount":2}')
    assert lines[-1].startswith("refused: [") and "bid" in lines[-1]
    assert not await console.execute('do {"type":"warp","amount":2}')
    assert lines[-1].startswith("error: Not a valid action")
    assert not await console.execute("do {not json")
    assert lines[-1].startswith("error: Not valid JSON")
    assert not await console.execute("pass")  # a traitor pick cannot be declined
    assert "cannot be passed" in lines[-1]
    assert not await console.execute("fly")
    assert "Unknown command 'fly'" in lines[-1]
    assert await _snapshot(console) == before


async def test_pass_declines_a_bid_and_default_answers_for_the_acting_seat(started):
    console, lines = started
    for _ in range(100):  # let the automatic players reach an Atreides bid
        state = await console.service.state_of("g1")
        if any(p.kind == PromptKind.BID for p in state.prompts_for(A)):
            break
        await _run(console, "auto")
    await _run(console, "as atreides", "prompts")
    assert " bid (public)" in lines[-1]
    mark = len(lines)
    await _run(console, "pass")
    assert lines[mark].startswith("accepted: pass_bid for Atreides (version ")
    assert any(line.startswith("The Atreides pass on card") for line in _channel(lines[mark:]))
    assert not await console.execute("default p1")
    assert lines[-1].startswith("error: Atreides has no open decision 'p1'")


# --- (d) seats ----------------------------------------------------------------------------------


async def test_as_switches_seats_and_refuses_unknown_or_absent_factions(started):
    console, lines = started
    assert console.seat == A and console.prompt_text() == "mentat[atreides]> "
    await _run(console, "as bt")
    assert console.seat == BT and lines[-1].startswith("Acting as Bene Tleilaxu: 1 open decision(s)")
    assert not await console.execute("as emperor")
    assert lines[-1] == "error: Emperor is not in this game; its factions are atreides, fremen, bene_tleilaxu."
    assert not await console.execute("as spice_merchants")
    assert lines[-1].startswith("error: Unknown faction 'spice_merchants'")
    assert not await console.execute("as bene")  # ambiguous
    assert console.seat == BT
    before = await _snapshot(console)
    traitor = (await console.service.state_of("g1")).prompts_for(A)[0].options[0]
    assert not await console.execute(f'do {{"type":"choose_traitor","faction":"atreides","leader":"{traitor}"}}')
    assert lines[-1] == "refused: You are not seated as atreides in this game."
    assert await _snapshot(console) == before


async def test_commands_before_a_game_and_bad_games_are_refused():
    console, lines = await _console()
    assert console.prompt_text() == "mentat> "
    for command, message in (("start", "no game yet"), ("as atreides", "no game yet"),
                             ("new atreides,fremen --options nope", "Unknown option 'nope'"),
                             ("new atreides,bt", "BT-2"), ("new atreides,atreides,fremen", "listed twice"),
                             ("new atreides,fremen --seed x", "whole number")):
        assert not await console.execute(command)
        assert message in lines[-1], (command, lines[-1])
    assert await console.service.store.list_games() == []
    await _run(console, "new atreides fremen --seed 3 --options turns=2,choam_charity")
    assert not await console.execute("new atreides,fremen")
    assert "already has a game" in lines[-1]
    setup = GameSetup.model_validate_json((await console.service.store.load_game("g1")).setup_json)
    assert setup.seed == 3 and setup.options.turns == 2 and setup.options.choam_charity


# --- admin, undo and DMs that cannot be delivered -----------------------------------------------


async def test_corrections_need_the_admin_verb_and_undo_guards_secrets(started):
    console, lines = started
    correction = '{"type":"set_spice","faction":"atreides","amount":3}'
    assert not await console.execute(f"do {correction}")
    assert lines[-1] == "error: set_spice is a correction: submit it with admin <json>."
    await _run(console, f"admin {correction}")
    assert any("corrected the Atreides' spice (console correction)" in line for line in _channel(lines))
    assert (await console.service.state_of("g1")).faction(A).spice == 3
    await _run(console, "default")  # the Atreides traitor pick
    assert not await console.execute("undo 1")
    assert "already seen" in lines[-1]
    await _run(console, "undo 1 force")
    assert "back at version 1" in _channel(lines)[-1]
    await _run(console, "prompts")
    assert lines[-1].startswith("p1  traitor pick (secret)\n    choices: ")


async def test_a_closed_dm_falls_back_to_the_table():
    """The start's probe finds the closed DMs: the start says so, the table is told once, and the Fremen read
    their decisions with `prompts`."""
    console, lines = await _console()
    await _run(console, NEW, "dm close fremen", "start")
    assert "The game has started. No DMs reach: fremen (they use prompts)." in lines
    assert [line for line in _channel(lines) if "cannot DM the fremen player" in line] == [
        "The bot cannot DM the fremen player (<@104>): they must open DMs from server members; until then they use "
        "/me prompts."]
    assert "fremen" not in console.gateway.inboxes
    await _run(console, "as fremen", "prompts")
    assert "traitor pick (secret)" in lines[-1]


async def test_a_delivery_file_records_each_delivery_once(tmp_path):
    deliveries = tmp_path / "delivered.jsonl"
    lines: list[str] = []
    console = Console(GameService(MemoryGameStore()), ConsoleGateway(lines.append, deliveries), out=lines.append)
    await _run(console, NEW, "start")
    recorded = [json.loads(line) for line in deliveries.read_text().splitlines()]
    channel = [entry["text"] for entry in recorded if entry["to"] == "#channel"]
    assert channel[0].startswith("**A game of Dune is open: ")
    assert {entry["to"] for entry in recorded} == {"#channel", "atreides", "fremen", "bene_tleilaxu"}
    ids = [entry["outbox_id"] for entry in recorded]
    assert len(ids) == len(set(ids))  # each once (by lane, concurrently; an edit may go with an earlier one)
    again = ConsoleGateway(lines.append, deliveries)  # a restarted console: what is in the file is not redone
    assert again.deliveries.delivered == set(ids)


# --- (e) export ---------------------------------------------------------------------------------


async def test_export_writes_a_record_the_engine_replays(played, tmp_path, capsys):
    path = tmp_path / "game.json"
    await _run(played.console, f"export {path}")
    stored = len(await played.console.service.store.actions("g1"))
    assert played.lines[-1] == f"Exported {stored} action(s) to {path}."
    assert engine_main(["replay", str(path)]) == 0
    assert f"replay OK: {stored} actions, seed 7" in capsys.readouterr().out


# --- (f) scripts --------------------------------------------------------------------------------


def test_a_script_passes_with_expected_refusals(tmp_path, capsys):
    script = _script(tmp_path, f"# a demo\n{NEW}\nstart\n\n!do {{\"type\":\"bid\",\"amount\":2}}\n!as emperor\n"
                               "default\nauto 5\nstatus\n")
    assert console_main(["--script", script]) == 0
    out = capsys.readouterr().out
    assert "> !as emperor\nerror: Emperor is not in this game" in out
    assert "Game g1: running, version 6" in out


def test_a_script_stops_at_the_first_unexpected_result(tmp_path, capsys):
    failing = _script(tmp_path, f"{NEW}\nstart\ndo {{\"type\":\"bid\",\"amount\":2}}\nstatus\n")
    assert console_main(["--script", failing]) == 1
    out = capsys.readouterr().out
    assert "line 3: the command failed" in out and "> status" not in out
    accepted = _script(tmp_path, f"{NEW}\n!start\n", "accepted.txt")
    assert console_main(["--script", accepted]) == 1
    assert "line 2: expected a refusal, but the command was accepted" in capsys.readouterr().out
    assert console_main(["--script", str(tmp_path / "missing.txt")]) == 2


def test_python_m_bot_console_runs_a_script(tmp_path):
    script = _script(tmp_path, f"{NEW}\nstart\nauto 3\nquit\nstatus\n")
    done = subprocess.run([sys.executable, "-m", "bot.console", "--script", script], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "[#game] - A game of Dune begins" in done.stdout and "> status" not in done.stdout  # quit ends the script


def test_the_interactive_prompt_reads_until_end_of_input(monkeypatch, capsys):
    typed = iter([NEW, "start", "as fremen", "bogus", "view"])

    def fake_input(prompt):
        print(prompt, end="")
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    assert console_main([]) == 0
    out = capsys.readouterr().out
    assert "mentat[fremen]> " in out and "Unknown command 'bogus'" in out and "Your secrets (Fremen)" in out


# --- (g) SQLite: quit, restart on the same file, carry on ---------------------------------------


def test_a_game_in_a_database_survives_a_restart(tmp_path, capsys):
    db = str(tmp_path / "mentat.sqlite")
    first = _script(tmp_path, f"{NEW}\nstart\nas fremen\ndefault\nauto 10\nquit\n", "first.txt")
    assert console_main(["--db", db, "--script", first]) == 0
    assert "auto: 10 decision(s) taken" in capsys.readouterr().out
    second = _script(tmp_path, "status\n!new atreides,fremen\nauto 5\nstatus\n", "second.txt")
    assert console_main(["--db", db, "--script", second]) == 0
    out = capsys.readouterr().out
    assert "Resumed game g1 (running, version 11); acting as Atreides." in out
    assert "Game g1: running, version 11" in out and "Game g1: running, version 16" in out
    assert "This channel already has a game" in out


def test_the_example_script_plays_a_bt_game_to_its_end_and_no_inbox_holds_anothers_secrets(tmp_path, capsys):
    """`examples/bt-game.txt`: a whole game with the BT through the console; every DM line of each faction's inbox
    is one of that faction's private events or one of its own decisions, checked against a replay of the game."""
    from bot.app.render import closing_messages, messages_for

    lines = (ROOT / "examples" / "bt-game.txt").read_text().splitlines()
    record_path = tmp_path / "game.json"
    lines.insert(lines.index("status") + 1, f"export {record_path}")
    assert console_main(["--script", _script(tmp_path, "\n".join(lines) + "\n")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert "[#game] The game is over. What was secret:" in printed

    inboxes: dict[str, list[str]] = {}
    for number, line in enumerate(printed):
        if line.startswith("Inbox of "):
            name = line.removeprefix("Inbox of ").split(":")[0]
            inboxes[name] = [text.strip() for text in printed[number + 1:] if text.startswith("  ")]
            inboxes[name] = inboxes[name][:int(line.split(": ")[1].split()[0])]
    assert set(inboxes) == {"Atreides", "Harkonnen", "Fremen", "Bene Tleilaxu"}

    record = json.loads(record_path.read_text())
    setup = GameSetup.model_validate(record["setup"])
    state, events = replay(setup, [])
    allowed: dict[Faction, set[str]] = {f: set() for f in setup.factions}
    before = None
    for action in [None, *(parse_action(a) for a in record["actions"])]:
        messages = []
        if action is not None:
            before, (state, events) = state, apply(state, action)
            messages = closing_messages(before, state, action)
        for message in messages_for(events, before, state) + messages:
            if message.recipient.faction:
                prefix = CLOSED_PREFIX if message.edit_of else ""
                allowed[Faction(message.recipient.faction)].update(prefix + line for line in message.text.splitlines())
    for faction in setup.factions:
        inbox = inboxes[faction_name(faction)]
        assert inbox and set(inbox) <= allowed[faction], f"{faction.value} received what was not theirs"


def test_a_15_a_14_both_fronts_show_the_fremen_forecast_and_a_readied_special_karama():
    """Every secret of a faction's own view reaches its owner on both fronts (one list: bot.app.render)."""
    from bot.app.anytime_words import special_order_words
    from bot.console.text import format_view
    from bot.discord.text import secrets_text
    from engine.model import SpecialKaramaOrder
    G, H = Faction.GUILD, Faction.HARKONNEN
    from engine.secrecy.views import view
    from tests.conftest import ready_game

    fremen = view(ready_game((A, F), seed=3), F)
    worm = SpecialKaramaOrder(faction=F, card="karama_1", power="fremen_worm", territory="Funeral Plain")
    mine = fremen.model_copy(update={"own": fremen.own.model_copy(update={"storm_forecast": 4,
                                                                         "special_karama_orders": [worm]})})
    assert "The storm next turn: moves 4 sectors (weather)" in secrets_text(mine)
    worm_words = "Shai-Hulud in Funeral Plain at the end of the next spice blow (A-14)"
    assert f"Special Karama readied: {worm_words}" in secrets_text(mine)
    assert "  the storm next turn: moves 4 sectors (weather)" in format_view(mine)
    assert f"  special Karama readied: {worm_words}" in format_view(mine)
    stop = SpecialKaramaOrder(faction=G, card="karama_1", power="stop_shipment", target=H)
    assert special_order_words(stop) == ("the Harkonnen's next shipment from off-planet stopped, not made and not "
                                         "paid (A-14)")
