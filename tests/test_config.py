"""Settings from the environment and .env: defaults, clear errors, and a token that is never shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, Settings, read_env_file


def test_defaults_need_nothing():
    settings = Settings.load({}, env_file=None)
    assert not settings.has_token and settings.dev_guild_id is None
    assert settings.database_path == Path("mentat.sqlite3") and settings.log_level == "INFO"


def test_the_token_is_never_shown():
    settings = Settings.load({"DISCORD_TOKEN": "MTIz.secret-token"}, env_file=None)
    assert settings.has_token
    for text in (repr(settings), str(settings), f"{settings}", str(settings.model_dump())):
        assert "MTIz.secret-token" not in text
    assert settings.discord_token.get_secret_value() == "MTIz.secret-token"


def test_env_file_is_read_and_the_environment_wins(tmp_path):
    env = tmp_path / ".env"
    env.write_text("# settings\nexport DISCORD_TOKEN='abc # not a comment'\nDEV_GUILD_ID=42  # the test server\n"
                   "DATABASE_PATH=\"games/dune.sqlite3\"\n\nLOG_LEVEL=debug\n")
    assert read_env_file(env)["DISCORD_TOKEN"] == "abc # not a comment"
    settings = Settings.load({"LOG_LEVEL": "warning"}, env_file=env)
    assert settings.dev_guild_id == 42 and settings.database_path == Path("games/dune.sqlite3")
    assert settings.log_level == "WARNING"
    assert Settings.load({"DEV_GUILD_ID": ""}, env_file=env).dev_guild_id == 42  # empty counts as unset


def test_errors_name_what_is_wrong(tmp_path):
    with pytest.raises(ConfigError) as error:
        Settings.load({"DEV_GUILD_ID": "12ab", "LOG_LEVEL": "chatty"}, env_file=None)
    assert error.value.problems == [
        "DEV_GUILD_ID: must be a Discord server id (a whole number), got '12ab'",
        "LOG_LEVEL: must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, got 'chatty'",
    ]
    env = tmp_path / ".env"
    env.write_text("DISCORD_TOKEN\nDEV_GUILD_ID='12\n")
    with pytest.raises(ConfigError) as error:
        Settings.load({}, env_file=env)
    assert [p.split(": ", 1)[1] for p in error.value.problems] == [
        "expected NAME=value", "DEV_GUILD_ID's value has no closing '"]
    assert all("line" in p for p in error.value.problems)


def test_a_log_line_never_shows_the_token(caplog):
    import logging

    from bot.__main__ import RedactSecret

    logger = logging.getLogger("test.redact")
    caplog.handler.addFilter(RedactSecret("MTIz.secret-token"))
    with caplog.at_level(logging.INFO, logger="test.redact"):
        logger.info("connecting with %s", "MTIz.secret-token")
    assert "MTIz.secret-token" not in caplog.text and "**********" in caplog.text
