"""The Discord command tree, built offline: its groups, a golden manifest, and `python -m bot check`.

The golden file tests/golden/command_tree.json pins every command's name, description and options, so a
rename or an option change is a deliberate act. After an intended change, regenerate it with

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_discord_tree.py

and review the diff (a changed tree also needs a sync to Discord).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.discord.manifest import command_manifest, describe_tree
from bot.store.memory import MemoryGameStore

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "command_tree.json"


@pytest.fixture
async def bot():
    bot = MentatBot(GameService(MemoryGameStore()))
    await bot.add_cogs()  # no login: the tree is built locally
    return bot


async def test_the_four_groups_exist(bot):
    groups = {command.name: command for command in bot.tree.get_commands()}
    assert set(groups) == {"game", "play", "me", "admin", "rules", "card", "bt"}
    assert {c.name for c in groups["play"].commands} >= {"bid", "pass", "dial", "ship", "move", "revive",
                                                           "traitor", "predict", "plan", "propose", "accept",
                                                           "break", "nexus-done", "bribe", "gift", "choose-battle",
                                                           "ask", "answer", "voice", "call", "traitor-order",
                                                           "bid-order"}
    assert {c.name for c in groups["card"].commands} == {"karama", "storm-cards", "hajr", "ghola", "truthtrance",
                                                         "answer-truthtrance", "worm", "advisor", "ship-back",
                                                         "worm-place", "guild-timing", "coexist", "special-karama",
                                                         "return-cards"}
    assert {c.name for c in groups["bt"].commands} == {"setup-traps", "traps-and-gifts", "mark", "reveal",
                                                       "reveal-window", "attack", "impair", "ally-revive",
                                                       "grant-revival", "spice-order",
                                                       "karama-tax", "karama-trap", "karama-reveal"}
    assert {c.name for c in groups["admin"].commands} == {"force", "spice", "undo", "seat", "deadline", "tokens",
                                                           "card", "leader", "storm", "pause", "grace"}
    assert groups["admin"].default_permissions.manage_guild


async def test_the_command_tree_matches_the_golden_file(bot):
    manifest = command_manifest(bot.tree)
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "no golden file yet: run with UPDATE_GOLDEN=1"
    assert json.loads(GOLDEN.read_text(encoding="utf-8")) == manifest, "the tree changed: see this module's docstring"


async def test_limits_discord_enforces(bot):
    """Names and descriptions within Discord's limits, at most 25 options and subcommands each."""
    def walk(options):
        assert len(options) <= 25
        for option in options:
            assert 1 <= len(option["name"]) <= 32 and option["name"] == option["name"].lower()
            assert 1 <= len(option["description"]) <= 100
            walk(option.get("options", []))
    for entry in command_manifest(bot.tree):
        assert len(entry["description"]) <= 100
        walk(entry["options"])
    assert any(line.startswith("  bid amount:integer[1..200]") for line in describe_tree(bot.tree))


def _check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    settings = ("DISCORD_TOKEN", "DEV_GUILD_ID", "DATABASE_PATH", "DATABASE_URL", "LOG_LEVEL")
    environ = {k: v for k, v in os.environ.items() if k not in settings}
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "bot", "check"], cwd=tmp_path, env=environ, capture_output=True,
                          text=True, timeout=120)


def test_check_needs_no_token_and_prints_the_tree(tmp_path):
    result = _check(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "DISCORD_TOKEN: not set" in result.stdout
    assert "/play - " in result.stdout and "  bid amount:integer" in result.stdout
    assert (tmp_path / "mentat.sqlite3").exists()  # opened and migrated


def test_check_never_prints_the_token(tmp_path):
    result = _check(tmp_path, DISCORD_TOKEN="very.secret.token", DEV_GUILD_ID="1234")
    assert result.returncode == 0, result.stderr
    assert "DISCORD_TOKEN: set" in result.stdout and "DEV_GUILD_ID: 1234" in result.stdout
    assert "very.secret.token" not in result.stdout + result.stderr


def test_check_explains_a_bad_guild_id_and_exits_2(tmp_path):
    result = _check(tmp_path, DEV_GUILD_ID="my-server")
    assert result.returncode == 2
    assert "DEV_GUILD_ID" in result.stderr and "whole number" in result.stderr
    assert "my-server" not in result.stderr  # a value is never echoed: it may be a secret in the wrong place


def test_check_names_the_postgres_store_and_connects_without_showing_the_password(tmp_path, postgres_url):
    url = postgres_url.replace("://mentat@", "://mentat:hunter2@")  # the test server trusts, whatever the password
    result = _check(tmp_path, DATABASE_URL=url)
    assert result.returncode == 0, result.stderr
    assert "Store: PostgreSQL, postgresql://mentat:***@127.0.0.1:" in result.stdout
    assert "Connected to PostgreSQL; the database is migrated." in result.stdout
    assert "hunter2" not in result.stdout + result.stderr and not (tmp_path / "mentat.sqlite3").exists()


def test_check_explains_an_unreachable_postgres_and_exits_2(tmp_path):
    result = _check(tmp_path, DATABASE_URL="postgresql://mentat:hunter2@127.0.0.1:1/dune")
    assert result.returncode == 2
    assert ("DATABASE_URL: cannot use the PostgreSQL database at postgresql://mentat:***@127.0.0.1:1/dune: "
            "[Errno 111] Connect call failed") in result.stderr
    assert "hunter2" not in result.stdout + result.stderr


def test_check_explains_a_malformed_env_file(tmp_path):
    (tmp_path / ".env").write_text("DEV_GUILD_ID=12\nnot a setting\nLOG_LEVEL=chatty\n")
    result = _check(tmp_path)
    assert result.returncode == 2
    assert ".env line 2: expected NAME=value" in result.stderr


def test_running_without_a_token_is_refused(tmp_path):
    environ = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    result = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env={**environ, "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "DISCORD_TOKEN: not set" in result.stderr
