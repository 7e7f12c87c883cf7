"""The `mentat` command (bot/__main__.py) as an admin meets it: `check` prints the invite URL and says no privileged
intent is needed; `run` without Discord says so in one line and exits 1 for the supervisor to restart it; SIGTERM
stops it cleanly with status 0."""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import discord
import pytest

from bot.__main__ import unreachable_reason
from bot.discord.permissions import permissions_integer

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ("DISCORD_TOKEN", "DEV_GUILD_ID", "DATABASE_PATH", "DATABASE_URL", "LOG_LEVEL", "DISCORD_APPLICATION_ID",
            "GAME_FILE_KEY")
APPLICATION_ID = 1234567890123456789
# A bot token begins with its application's id in base64 (the rest here is made up).
TOKEN = base64.b64encode(str(APPLICATION_ID).encode()).decode().rstrip("=") + ".GxYzAb.not-a-real-secret-at-all"
# discord.py sends every HTTP request under this base; pointed at this machine, the bot reaches no Discord.
RUN_AGAINST = ("import sys, discord.http; discord.http.Route.BASE = sys.argv[1] + '/api/v10'; "
               "from bot.__main__ import main; sys.exit(main(['run']))")


def _environment(**values: str) -> dict[str, str]:
    environ = {name: value for name, value in os.environ.items() if name not in SETTINGS}
    environ.update(PYTHONPATH=str(ROOT), **values)
    return environ


def _check(tmp_path: Path, **values: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot", "check"], cwd=tmp_path, env=_environment(**values),
                          capture_output=True, text=True, timeout=120)


def _run_against(base: str, tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", RUN_AGAINST, base], cwd=tmp_path, text=True,
                            env=_environment(DISCORD_TOKEN=TOKEN, GAME_FILE_KEY="k" * 64),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _invite(application_id: int | str) -> str:
    return (f"https://discord.com/oauth2/authorize?client_id={application_id}&scope=bot+applications.commands"
            f"&permissions={permissions_integer()}")


def test_check_prints_the_invite_url_of_the_configured_application(tmp_path):
    result = _check(tmp_path, DISCORD_APPLICATION_ID="42")
    assert result.returncode == 0, result.stderr
    assert ("Invite URL (a server admin opens it to add the bot with the permissions it needs): "
            f"{_invite(42)}\n") in result.stdout
    assert "Privileged intents: none needed (Message Content, Server Members and Presence may stay off)." \
        in result.stdout
    assert "APPLICATION_ID:" not in result.stdout


def test_check_reads_the_application_id_from_the_token_without_showing_the_token(tmp_path):
    result = _check(tmp_path, DISCORD_TOKEN=TOKEN)
    assert result.returncode == 0, result.stderr
    assert _invite(APPLICATION_ID) in result.stdout and "not-a-real-secret" not in result.stdout + result.stderr


def test_check_without_an_application_id_prints_a_placeholder_and_the_setting_that_fills_it(tmp_path):
    result = _check(tmp_path, DISCORD_TOKEN="not-base64!.x.y")
    assert result.returncode == 0, result.stderr
    assert _invite("APPLICATION_ID") in result.stdout
    assert ("The URL needs the bot's application id in place of APPLICATION_ID: set DISCORD_APPLICATION_ID "
            "(Developer Portal > your application > General Information) or DISCORD_TOKEN, then check again."
            ) in result.stdout


def test_check_refuses_an_application_id_that_is_not_a_number_without_echoing_it(tmp_path):
    result = _check(tmp_path, DISCORD_APPLICATION_ID="my-bot-secretish")
    assert result.returncode == 2
    assert "DISCORD_APPLICATION_ID: must be a Discord application id (a whole number)" in result.stderr
    assert "secretish" not in result.stdout + result.stderr


def test_run_without_discord_says_so_in_one_line_and_exits_1(tmp_path):
    with socket.socket() as closed:  # a port nothing listens on: the connection is refused at once
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    process = _run_against(f"http://127.0.0.1:{port}", tmp_path)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1
    assert err.splitlines()[-1] == (f"cannot reach Discord: Cannot connect to host 127.0.0.1:{port} ssl:default "
                                    f"[Connect call failed ('127.0.0.1', {port})]; will exit so the supervisor "
                                    "restarts it")
    assert "Traceback" not in out + err and "not-a-real-secret" not in out + err


def test_sigterm_stops_the_bot_cleanly_with_status_0(tmp_path):
    """SIGTERM while the bot waits on Discord (here a server that never answers its login): the bot closes, the
    store is closed (SQLite folds its write-ahead log back into the file) and the process exits 0."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # connections are accepted by the kernel and never answered
        process = _run_against(f"http://127.0.0.1:{silent.getsockname()[1]}", tmp_path)
        for line in process.stderr:
            if "logging in using static token" in line:
                break
        assert (tmp_path / "mentat.sqlite3-wal").exists()  # the store is open
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "SIGTERM received: stopping once the work in progress is done" in err and "Traceback" not in err
    assert err.splitlines()[-1].endswith("INFO    bot: stopped")
    assert (tmp_path / "mentat.sqlite3").exists() and not (tmp_path / "mentat.sqlite3-wal").exists()


def _http_error(status: int, reason: str) -> discord.HTTPException:
    response = SimpleNamespace(status=status, reason=reason)
    return (discord.DiscordServerError if status >= 500 else discord.HTTPException)(response, "")


@pytest.mark.parametrize(("error", "reason"), [
    (_http_error(503, "Service Unavailable"), "Discord answered 503 Service Unavailable"),
    (discord.GatewayNotFound(), "Discord's gateway was not found (a Discord outage?)"),
    (TimeoutError(), "no answer in time"),
    (OSError(101, "Network is unreachable"), "[Errno 101] Network is unreachable"),
    (_http_error(404, "Not Found"), None),  # Discord answered: not an outage, the traceback is wanted
    (ValueError("a bug"), None),
])
def test_what_counts_as_discord_unreachable(error, reason):
    assert unreachable_reason(error) == reason
