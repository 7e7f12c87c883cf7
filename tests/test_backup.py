"""`mentat backup FILE` (bot/store/backup.py): a consistent copy of the SQLite store taken by another process while
the bot writes to it, refused where it would overwrite or where the store is PostgreSQL (pg_dump's job)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.service import GameService
from bot.store.backup import BackupError, backup_sqlite
from bot.store.sqlite import SqliteGameStore
from engine.actions import parse_action
from engine.checks.autoplay import play_prompt
from engine.game import state_hash
from engine.ids import Faction
from engine.model import GameState
from engine.options import GameSetup
from engine.record import GameRecord, verify
from engine.rng import Rng

ROOT = Path(__file__).resolve().parent.parent
GAMES = ((Faction.ATREIDES, Faction.HARKONNEN, Faction.BENE_TLEILAXU), (Faction.FREMEN, Faction.EMPEROR),
         (Faction.GUILD, Faction.BENE_GESSERIT, Faction.HARKONNEN))
SETTINGS = ("DISCORD_TOKEN", "DATABASE_URL", "DATABASE_PATH", "DISCORD_APPLICATION_ID")


def _environment(**values: str) -> dict[str, str]:
    environ = {name: value for name, value in os.environ.items() if name not in SETTINGS}
    environ.update(PYTHONPATH=str(ROOT), **values)
    return environ


def _mentat(*args: str, cwd: Path, **values: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, env=_environment(**values),
                          capture_output=True, text=True, timeout=120)


async def _open_games(service: GameService) -> list[str]:
    game_ids = []
    for channel, factions in enumerate(GAMES, start=1):
        row = await service.create_game(1, channel, list(factions), seed=channel)
        for user, faction in enumerate(factions, start=100 * channel):
            await service.seat(row.game_id, faction, user)
        await service.start(row.game_id)
        game_ids.append(row.game_id)
    return game_ids


async def _play(service: GameService, game_ids: list[str], stop: asyncio.Event) -> None:
    """The engine's automatic players answer an open decision of each game in turn, through the service."""
    rng = Rng.from_seed(4)
    while not stop.is_set():
        for game_id in game_ids:
            state = await service.state_of(game_id)
            if state.prompts:
                prompt = rng.choice(state.prompts)
                action, _ = play_prompt(state, prompt, rng)
                row = await service.store.load_game(game_id)
                await service.submit(game_id, row.seats[action.faction.value], action, prompt_id=prompt.id)


def _actions_stored(database: Path) -> int:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as reader:
        return reader.execute("SELECT count(*) FROM actions").fetchone()[0]


async def _until(condition, patience: float = 60.0) -> None:
    for _ in range(int(patience / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the automatic players made no progress")


async def test_a_backup_taken_while_the_players_submit_opens_whole_and_each_game_replays_to_its_snapshot(tmp_path):
    live, copy = tmp_path / "mentat.sqlite3", tmp_path / "backup.sqlite3"
    store = await SqliteGameStore.open(live)
    service = GameService(store)
    stop = asyncio.Event()
    try:
        players = asyncio.create_task(_play(service, await _open_games(service), stop))
        await _until(lambda: _actions_stored(live) >= 30)
        launched = _actions_stored(live)
        backup = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "backup", str(copy), cwd=tmp_path, env=_environment(DATABASE_PATH=str(live)),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(backup.communicate(), 120)  # the players go on meanwhile
        assert backup.returncode == 0, err.decode()
        await _until(lambda: _actions_stored(live) > _actions_stored(copy))  # and after it
        stop.set()
        await players
    finally:
        await store.close()
    assert out.decode().startswith(f"Backed up 3 games from {live} to {copy} (")
    assert launched < _actions_stored(copy)  # taken in the middle of the play
    with sqlite3.connect(copy) as reader:
        assert reader.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert reader.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # one file, no -wal beside it
        games = reader.execute("SELECT game_id, setup_json, state_json, seq FROM games").fetchall()
        assert len(games) == 3
        for game_id, setup_json, state_json, seq in games:
            actions = [parse_action(text) for (text,) in reader.execute(
                "SELECT action_json FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))]
            assert len(actions) == seq > 0
            verify(GameRecord(setup=GameSetup.model_validate_json(setup_json), actions=actions,
                              state_hash=state_hash(GameState.model_validate_json(state_json))))
    assert not list(tmp_path.glob(".backup.sqlite3*"))  # no temporary file left


def test_an_existing_file_is_kept_unless_forced(tmp_path):
    live, copy = tmp_path / "mentat.sqlite3", tmp_path / "backup.sqlite3"
    copy.write_text("last week's backup")
    assert _mentat("check", cwd=tmp_path, DATABASE_PATH=str(live)).returncode == 0  # creates and migrates it
    refused = _mentat("backup", str(copy), cwd=tmp_path, DATABASE_PATH=str(live))
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr == (f"backup: not made: {copy} already exists; choose another file, or pass --force to "
                              "overwrite it\n")
    assert copy.read_text() == "last week's backup"
    forced = _mentat("backup", str(copy), "--force", cwd=tmp_path, DATABASE_PATH=str(live))
    assert forced.returncode == 0 and forced.stdout.startswith("Backed up 0 games from ")
    with sqlite3.connect(copy) as reader:
        assert reader.execute("SELECT count(*) FROM games").fetchone() == (0,)


def test_no_database_no_file_and_the_database_itself_are_refused_and_nothing_is_created(tmp_path):
    missing = tmp_path / "typo.sqlite3"
    with pytest.raises(BackupError, match=r"there is no database at .*typo.sqlite3 \(DATABASE_PATH\)"):
        backup_sqlite(missing, tmp_path / "copy.sqlite3")
    assert sorted(tmp_path.iterdir()) == []  # neither the database nor a copy was created
    live = tmp_path / "mentat.sqlite3"
    sqlite3.connect(live).close()
    with pytest.raises(BackupError, match="is the database itself"):
        backup_sqlite(live, tmp_path / "." / "mentat.sqlite3", force=True)
    with pytest.raises(BackupError, match=r"the folder .*nowhere does not exist"):
        backup_sqlite(live, tmp_path / "nowhere" / "copy.sqlite3")
    no_file = _mentat("backup", cwd=tmp_path, DATABASE_PATH=str(live))
    assert no_file.returncode == 2 and "name the file to write the copy to: mentat backup FILE" in no_file.stderr


def test_a_database_that_is_not_mentats_is_refused_and_the_old_backup_stays(tmp_path):
    other, copy = tmp_path / "other.sqlite3", tmp_path / "backup.sqlite3"
    with sqlite3.connect(other) as writer:
        writer.execute("CREATE TABLE notes (text TEXT)")
    copy.write_text("last week's backup")
    with pytest.raises(BackupError, match=r"cannot copy .*other.sqlite3 to .*backup.sqlite3: no such table: games"):
        backup_sqlite(other, copy, force=True)
    assert copy.read_text() == "last week's backup" and not list(tmp_path.glob(".backup*"))


def test_with_postgres_it_prints_the_pg_dump_command_without_the_password(tmp_path):
    result = _mentat("backup", "dune 2026.dump", cwd=tmp_path,
                     DATABASE_URL="postgresql://mentat:hunter2@db.example:5432/mentat")
    assert result.returncode == 1 and "hunter2" not in result.stdout + result.stderr
    assert result.stderr.splitlines() == [
        "backup: the games are in PostgreSQL (DATABASE_URL); back them up with pg_dump, which takes a consistent "
        "copy while the bot runs (with the password in place of ***):",
        "  pg_dump --format=custom --file='dune 2026.dump' 'postgresql://mentat:***@db.example:5432/mentat'"]
    assert not (tmp_path / "dune 2026.dump").exists()


def test_a_damaged_database_is_not_copied_over_the_last_good_backup(tmp_path):
    damaged, copy = tmp_path / "mentat.sqlite3", tmp_path / "backup.sqlite3"
    with sqlite3.connect(damaged) as writer:
        writer.execute("CREATE TABLE games (x)")
        writer.execute("CREATE INDEX games_x ON games (x)")
        writer.executemany("INSERT INTO games VALUES (?)", [(n,) for n in range(5000)])
    data = bytearray(damaged.read_bytes())
    middle = len(data) - 4096 + 2000  # inside the last page, an index page: its entries no longer match the rows
    data[middle:middle + 100] = bytes(reversed(data[middle:middle + 100]))
    damaged.write_bytes(data)
    copy.write_text("last week's backup")
    with pytest.raises(BackupError, match=r"failed SQLite's integrity check, so the database itself is damaged \("):
        backup_sqlite(damaged, copy, force=True)
    assert copy.read_text() == "last week's backup" and not list(tmp_path.glob(".backup*"))
