"""The Discord command tree, built offline: its groups, a golden manifest, the hash that decides whether to sync it,
`python -m bot check` and `python -m bot sync` (with Discord's login and sync stood in for).

The golden file tests/golden/command_tree.json pins every command's name, description and options, so a
rename or an option change is a deliberate act. After an intended change, regenerate it with

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_discord_tree.py

and review the diff (the bot syncs a changed tree with Discord at its next start).
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import discord
import pytest
from discord import app_commands
from discord.app_commands import CommandTree

from bot.__main__ import main
from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.discord.command_sync import sync_globally, synced_key
from bot.discord.errors import MentatTree
from bot.discord.manifest import command_manifest, describe_tree, manifest_hash, sync_payload
from bot.store.memory import MemoryGameStore
from bot.store.sqlite import SqliteGameStore

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "command_tree.json"


@pytest.fixture
async def bot():
    bot = MentatBot(GameService(MemoryGameStore()))
    await bot.add_cogs()  # no login: the tree is built locally
    return bot


@pytest.fixture
async def bot_tree_hash(bot) -> str:
    return manifest_hash(bot.tree)


async def test_the_groups_and_their_commands(bot):
    groups = {command.name: command for command in bot.tree.get_commands()}
    assert set(groups) == {"game", "play", "nexus", "me", "admin", "rules", "card", "bt"}
    assert {c.name for c in groups["play"].commands} == {"bid", "pass", "dial", "ship", "move", "skip", "revive",
                                                         "traitor", "predict", "plan", "capture", "bribe", "gift",
                                                         "choose-battle", "ask", "answer", "voice", "call"}
    assert {c.name for c in groups["nexus"].commands} == {"propose", "accept", "break", "done"}
    assert {c.name for c in groups["me"].commands} == {"hand", "prompts", "orders", "act", "traitor-order",
                                                       "bid-order", "settings", "away", "back"}
    assert {c.name for c in groups["card"].commands} == {"karama", "storm-cards", "hajr", "ghola", "truthtrance",
                                                         "answer-truthtrance", "worm", "advisor", "ship-back",
                                                         "worm-place", "guild-timing", "coexist", "special-karama",
                                                         "return-cards"}
    assert {c.name for c in groups["bt"].commands} == {"setup-traps", "traps-and-gifts", "mark", "reveal",
                                                       "reveal-window", "attack", "impair", "ally-revive",
                                                       "grant-revival", "spice-order",
                                                       "karama-tax", "karama-trap", "karama-reveal"}
    assert {c.name for c in groups["admin"].commands} == {"force", "spice", "undo", "seat", "deadline", "tokens",
                                                           "card", "leader", "storm", "pause", "grace",
                                                           "moderator-role", "cancel"}
    # shown to every member, so that the holders of the server's moderator role see it; checked at use
    assert groups["admin"].default_permissions is None


async def test_the_command_tree_matches_the_golden_file(bot):
    manifest = command_manifest(bot.tree)
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "no golden file yet: run with UPDATE_GOLDEN=1"
    assert json.loads(GOLDEN.read_text(encoding="utf-8")) == manifest, "the tree changed: see this module's docstring"


def _written(docstring: str) -> str:
    """A docstring as the description its author wrote: the first paragraph, on one line (what discord.py sends
    when it fits in 100 characters)."""
    return " ".join(re.split(r"\n\s*\n", docstring.strip(), maxsplit=1)[0].split())


def _valid_name(name: str) -> bool:
    """`^[-_\\p{L}\\p{N}]{1,32}$` in lower case (str.isalnum is \\p{L} or \\p{N})."""
    return 1 <= len(name) <= 32 and name == name.lower() and all(c in "-_" or c.isalnum() for c in name)


def _limit_problems(sent: dict, declared, path: str) -> list[str]:
    """What Discord would refuse, or what discord.py cut, in one command or group as sent (`sent`), checked against
    its declaration in the code (`declared`), then in its options, subcommands and choices."""
    problems = []
    if not _valid_name(sent["name"]):
        problems.append(f"{path}: the name {sent['name']!r} is not 1-32 lower-case letters, digits, - or _")
    if isinstance(declared, app_commands.Command) and declared.callback.__doc__:
        written = _written(declared.callback.__doc__)
    else:
        written = declared.description
    problems += _description_problems(path, sent["description"], written)
    options = sent.get("options", [])
    if len(options) > 25:
        problems.append(f"{path}: {len(options)} options or subcommands (at most 25)")
    children = {c.name: c for c in declared.commands} if isinstance(declared, app_commands.Group) else {}
    parameters = {p.display_name: p for p in declared.parameters} if isinstance(declared, app_commands.Command) else {}
    described = getattr(getattr(declared, "callback", None), "__discord_app_commands_param_description__", {})
    for option in options:
        where = f"{path} {option['name']}"
        if option["name"] in children:
            problems += _limit_problems(option, children[option["name"]], where)
            continue
        if not _valid_name(option["name"]):
            problems.append(f"{where}: the name is not 1-32 lower-case letters, digits, - or _")
        written = described.get(parameters[option["name"]].name)
        if written is None:
            problems.append(f"{where}: no description (app_commands.describe)")
        else:
            problems += _description_problems(where, option["description"], " ".join(written.split()))
        choices = option.get("choices", [])
        if len(choices) > 25:
            problems.append(f"{where}: {len(choices)} choices (at most 25)")
        problems += [f"{where}: the choice {c['name']!r} is not 1-100 characters" for c in choices
                     if not 1 <= len(c["name"]) <= 100]
        problems += [f"{where}: the choice value {c['value']!r} is over 100 characters" for c in choices
                     if isinstance(c["value"], str) and len(c["value"]) > 100]
    return problems


def _description_problems(path: str, sent: str, written: str) -> list[str]:
    if sent != written:
        return [f"{path}: discord.py sends {sent!r} for {written!r} ({len(written)} characters)"]
    if not 1 <= len(sent) <= 100:
        return [f"{path}: the description has {len(sent)} characters (1 to 100)"]
    return []


def _counted_text(sent: dict) -> int:
    """The characters Discord counts towards a command's 8,000: names, descriptions, and choices' names and values,
    of the command and everything under it."""
    choices = sum(len(c["name"]) + len(str(c["value"])) for c in sent.get("choices", []))
    return len(sent["name"]) + len(sent["description"]) + choices + sum(map(_counted_text, sent.get("options", [])))


async def test_the_tree_a_global_sync_sends_keeps_within_discords_limits_and_nothing_is_cut(bot):
    """What `tree.sync()` sends (bot/discord/manifest.py sync_payload), against the limits in Discord's developer
    documentation, Interactions > Application Commands (discord/discord-api-docs): "Application Command Naming"
    (`^[-_\\p{L}\\p{N}]{1,32}$`, lower case for slash commands and their options), "Application Command Structure"
    and "Application Command Option Structure" (descriptions 1-100 characters; up to 25 options or subcommands a
    level; up to 25 choices), "Application Command Option Choice Structure" (names 1-100 characters, string values
    up to 100), and "Registering a Command" (100 global slash commands; a command's names, descriptions and choices
    8,000 characters in all). A description longer than 100 characters does not fail the sync: discord.py cuts it
    and ends it with "…", so each description sent is compared with the text the code gives it (its docstring, or
    its app_commands.describe): a player would read the sentence cut."""
    payload = sync_payload(bot.tree)
    declared = {command.name: command for command in bot.tree.get_commands()}
    problems = []
    for command in payload:
        problems += _limit_problems(command, declared[command["name"]], "/" + command["name"])
        if _counted_text(command) > 8000:
            problems.append(f"/{command['name']}: {_counted_text(command)} characters of text (at most 8,000)")
    assert problems == []
    assert len([command for command in payload if command.get("type", 1) == 1]) <= 100
    # the count that brought this test: /play stays well under the 25 a group holds
    assert len(declared["play"].commands) <= 20


async def test_the_tree_as_check_prints_it_shows_each_option_with_its_range(bot):
    assert any(line.startswith("  bid amount:integer[1..200]") for line in describe_tree(bot.tree))


def test_the_limit_check_sees_what_discord_py_cut():
    """discord.py sends a docstring or a describe text over 100 characters cut, ending in "…": the check names it."""
    long = ("Written on and on, past the hundred characters that Discord allows a description, so that discord.py "
            "cuts it.")

    @app_commands.command(name="probe")
    @app_commands.describe(colour=long)
    async def probe(interaction: discord.Interaction, colour: str) -> None:
        """Never run: its declaration, the first paragraph of this docstring, is written past the hundred characters
        Discord allows.

        A second paragraph, which discord.py leaves out."""

    tree = CommandTree(discord.Client(intents=discord.Intents.none()))
    tree.add_command(probe)
    [sent] = sync_payload(tree)
    written = _written(probe.callback.__doc__)
    assert written.endswith("allows.") and len(written) == 121
    cut = sent["description"], sent["options"][0]["description"]
    assert all(len(text) <= 100 and text.endswith("…") for text in cut)  # cut between words
    assert _limit_problems(sent, probe, "/probe") == [
        f"/probe: discord.py sends {cut[0]!r} for {written!r} (121 characters)",
        f"/probe colour: discord.py sends {cut[1]!r} for {long!r} ({len(long)} characters)"]


# "/group subcommand" in a text: not part of a path or a URL (docs/running.md has both).
COMMAND_MENTION = re.compile(r"(?<![\w/.:-])/([a-z]+) ([a-z][a-z0-9_-]*)")


def _code_strings(path: Path) -> list[str]:
    """The strings a module's code holds (what it sends, shows or raises), its docstrings left out: those are
    for its readers, except the commands' (checked in the sync payload)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree) if isinstance(node, documented) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def _payload_strings(entry: dict) -> list[str]:
    return [entry["description"], *(c["name"] for c in entry.get("choices", [])),
            *(text for option in entry.get("options", []) for text in _payload_strings(option))]


async def test_every_command_a_text_names_is_in_the_tree(bot):
    """Players and admins read the bot's messages, refusals and command descriptions (bot/ and engine/), the README
    and docs/: a "/group subcommand" they name must be one Discord offers (commands move between groups)."""
    payload = sync_payload(bot.tree)
    subcommands = {entry["name"]: {option["name"] for option in entry.get("options", []) if option["type"] in (1, 2)}
                   for entry in payload}
    groups = {name for name, subs in subcommands.items() if subs}
    texts = [(str(path.relative_to(ROOT)), text) for folder in ("bot", "engine")
             for path in sorted((ROOT / folder).rglob("*.py")) for text in _code_strings(path)]
    texts += [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
              for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]]
    texts += [(f"/{entry['name']}", text) for entry in payload for text in _payload_strings(entry)]
    named = [(where, group, sub) for where, text in texts for group, sub in COMMAND_MENTION.findall(text)
             if group in groups]
    assert len(named) > 50  # the scan reads the texts
    assert [(where, f"/{group} {sub}") for where, group, sub in named if sub not in subcommands[group]] == []


def probe_tree(description: str = "A probe", colours: tuple[str, ...] = ("red",), **decorations) -> CommandTree:
    """A tree of one command, /probe colour: `decorations` name decorators of discord.app_commands
    (default_permissions, allowed_contexts, allowed_installs) applied to it with their keywords; nsfw sets its flag."""
    nsfw = decorations.pop("nsfw", False)

    @app_commands.command(name="probe", description=description, nsfw=nsfw)
    @app_commands.choices(colour=[app_commands.Choice(name=colour, value=colour) for colour in colours])
    async def probe(interaction: discord.Interaction, colour: str) -> None:
        """Never run: only its declaration matters here."""

    for name, keywords in decorations.items():
        probe = getattr(app_commands, name)(**keywords)(probe)
    tree = CommandTree(discord.Client(intents=discord.Intents.none()))
    tree.add_command(probe)
    return tree


def test_the_sync_hash_changes_with_every_field_discord_receives():
    """The hash kept to decide whether to sync (bot/discord/command_sync.py) covers all that a sync sends: the
    manifest's fields, and those the manifest leaves out (contexts, integration types, nsfw)."""
    base = probe_tree()
    variants = {"description": probe_tree(description="Another probe"), "choices": probe_tree(colours=("red", "blue")),
                "permissions": probe_tree(default_permissions={"manage_guild": True}),
                "contexts": probe_tree(allowed_contexts={"guilds": True, "dms": False, "private_channels": False}),
                "integration types": probe_tree(allowed_installs={"guilds": True, "users": False}),
                "nsfw": probe_tree(nsfw=True)}
    hashes = {name: manifest_hash(tree) for name, tree in variants.items()}
    assert len({manifest_hash(base), *hashes.values()}) == len(variants) + 1
    assert manifest_hash(probe_tree()) == manifest_hash(base)  # the same declaration, the same hash
    outside = [name for name, tree in variants.items() if command_manifest(tree) == command_manifest(base)]
    assert outside == ["contexts", "integration types", "nsfw"]  # fields only the hash sees


async def test_the_sync_hash_does_not_depend_on_the_order_the_commands_were_added(bot):
    reordered = CommandTree(discord.Client(intents=discord.Intents.none()))
    for command in reversed(bot.tree.get_commands()):
        reordered.add_command(command)
    assert [c.name for c in reordered.get_commands()] != [c.name for c in bot.tree.get_commands()]
    assert manifest_hash(reordered) == manifest_hash(bot.tree)


async def test_the_sync_at_start_is_decided_per_discord_application(monkeypatch):
    """A database kept when the bot moves to another Discord application: the new one gets its commands."""
    synced = []

    async def sync(tree, *, guild=None) -> list:
        synced.append(tree.client.application_id)
        return tree.get_commands()

    monkeypatch.setattr(MentatTree, "sync", sync)
    store = MemoryGameStore()
    for application_id in (1, 1, 2, 2, 1):
        bot = MentatBot(GameService(store), application_id=application_id)
        await bot.add_cogs()
        await sync_globally(bot.tree, store)
    assert synced == [1, 2]


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


APPLICATION_ID = 4321


@pytest.fixture
def offline_discord(monkeypatch, tmp_path) -> list:
    """`python -m bot sync` without the network: Discord's login runs only the setup it runs for the bot, and each
    sync is recorded (its server: None for a global sync) instead of sent. The settings: a token, a SQLite file in
    tmp_path, and a DEV_GUILD_ID, which `sync` leaves aside (it syncs globally)."""
    synced = []

    async def login(bot, token: str) -> None:
        assert token == "a.bot.token"
        bot._connection.application_id = APPLICATION_ID  # what discord.py's login learns from Discord
        await bot.setup_hook()

    async def sync(tree, *, guild=None) -> list:
        synced.append(guild)
        return tree.get_commands()

    monkeypatch.setattr(MentatBot, "login", login)
    monkeypatch.setattr(MentatTree, "sync", sync)
    for name in ("DATABASE_URL", "GAME_FILE_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {"DISCORD_TOKEN": "a.bot.token", "DATABASE_PATH": str(tmp_path / "mentat.sqlite3"),
                        "DEV_GUILD_ID": "42"}.items():
        monkeypatch.setenv(name, value)
    return synced


async def stored_hash(path: Path) -> str | None:
    store = await SqliteGameStore.open(path)
    try:
        return await store.get_value(synced_key(APPLICATION_ID))
    finally:
        await store.close()


def test_sync_forces_a_global_sync_and_records_what_it_sent(offline_discord, tmp_path, capsys, bot_tree_hash):
    for run in (1, 2):  # the second time too, though nothing changed: that is what a forced sync is for
        assert main(["sync", "--env-file", str(tmp_path / "absent.env")]) == 0
        assert offline_discord == [None] * run
    said = (f"Synced 8 commands globally (tree {bot_tree_hash}): Discord offers them at once in every server the bot "
            "is in; a Discord app still showing older ones reloads them when one is used.")
    shown = capsys.readouterr()
    assert shown.out.splitlines() == [said, said] and "a.bot.token" not in shown.out + shown.err
    assert asyncio.run(stored_hash(tmp_path / "mentat.sqlite3")) == bot_tree_hash


def test_sync_says_so_and_exits_1_when_discord_refuses_it(offline_discord, tmp_path, capsys, monkeypatch):
    async def refused(tree, *, guild=None) -> list:
        raise discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"), {"code": 50001,
                                                                                  "message": "Missing Access"})

    monkeypatch.setattr(MentatTree, "sync", refused)
    with pytest.raises(SystemExit) as exited:
        main(["sync", "--env-file", str(tmp_path / "absent.env")])
    assert exited.value.code == 1
    assert capsys.readouterr().err == "Discord refused the sync; the log above says why.\n"
    assert asyncio.run(stored_hash(tmp_path / "mentat.sqlite3")) is None  # not recorded as synced


def test_sync_without_a_token_is_refused(offline_discord, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DISCORD_TOKEN")
    assert main(["sync", "--env-file", str(tmp_path / "absent.env")]) == 2
    assert "DISCORD_TOKEN: not set; the sync logs in to Discord with it" in capsys.readouterr().err
    assert offline_discord == []


def test_running_without_a_token_is_refused(tmp_path):
    environ = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    result = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env={**environ, "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "DISCORD_TOKEN: not set" in result.stderr
