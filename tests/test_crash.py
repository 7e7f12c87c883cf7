"""Crash safety: the console process is killed (SIGKILL) at random moments while automatic players act on a
SQLite game; after each restart the stored game is whole — its actions replay to its snapshot, its version
counts its actions, and no outbox row is lost or half-written (bot issue, persistence)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bot.store.sqlite import SqliteGameStore
from engine.actions import parse_action
from engine.game import state_hash
from engine.model import GameState
from engine.options import GameSetup
from engine.record import replay

ROOT = Path(__file__).resolve().parent.parent
KILLS = 4


def _console(db: Path, script: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bot.console", "--db", str(db), "--script", str(script)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def _check_whole(db: Path) -> int:
    store = await SqliteGameStore.open(db)
    try:
        game = await store.load_game("g1")
        stored = await store.actions("g1")
        assert game.seq == len(stored) and [a.seq for a in stored] == list(range(1, len(stored) + 1))
        state, _ = replay(GameSetup.model_validate_json(game.setup_json), [parse_action(a.action_json)
                                                                          for a in stored])
        assert state_hash(state) == state_hash(GameState.model_validate_json(game.state_json))
        assert all(row.seq <= game.seq for row in await store.pending_outbox(limit=100_000))
        return game.seq
    finally:
        await store.close()


def _wait_for_progress(db: Path, version: int, process: subprocess.Popen, patience: float = 30.0) -> None:
    """Until the game has moved past `version` (read-only; WAL lets the writer go on)."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as reader:
            (seq,) = reader.execute("SELECT seq FROM games WHERE game_id = 'g1'").fetchone()
        if seq > version or process.poll() is not None:
            return
        time.sleep(0.05)
    raise AssertionError("the automatic players made no move")


def test_killed_mid_game_the_store_is_whole_after_every_restart(tmp_path):
    db = tmp_path / "crash.sqlite3"
    setup = tmp_path / "setup.txt"
    setup.write_text("new atreides harkonnen fremen bene_tleilaxu --seed 5\nstart\n")
    assert subprocess.run([sys.executable, "-m", "bot.console", "--db", str(db), "--script", str(setup)],
                          cwd=ROOT, capture_output=True, timeout=60).returncode == 0
    play = tmp_path / "play.txt"
    play.write_text("auto 5\n" * 400)
    pace = random.Random(11)
    versions = [asyncio.run(_check_whole(db))]
    for _ in range(KILLS):
        process = _console(db, play)
        _wait_for_progress(db, versions[-1], process)  # past start-up, into the players' commits
        time.sleep(pace.uniform(0.0, 0.5))
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        versions.append(asyncio.run(_check_whole(db)))
    assert versions[-1] > versions[0], "the players never got to act before the kills"
    assert versions == sorted(versions)  # nothing acknowledged was lost
