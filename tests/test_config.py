"""Settings from the environment and .env: defaults, clear errors that never echo a value, and a token and a
database password that are never shown."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.__main__ import RedactSecret
from bot.config import ConfigError, Settings, shown_url

VARIABLES = ("DISCORD_TOKEN", "DEV_GUILD_ID", "DATABASE_URL", "DATABASE_PATH", "LOG_LEVEL")


@pytest.fixture
def environ(monkeypatch):
    """The process environment without any of the bot's variables; set some with environ(NAME=value)."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)

    def set_variables(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)

    return set_variables


def test_defaults_need_nothing(environ):
    settings = Settings.load(env_file=None)
    assert not settings.has_token and settings.dev_guild_id is None and not settings.uses_postgres
    assert settings.database_path == Path("mentat.sqlite3") and settings.log_level == "INFO"
    assert settings.store_description == "SQLite, file mentat.sqlite3 (DATABASE_PATH)"


def test_the_token_is_never_shown(environ):
    environ(DISCORD_TOKEN="MTIz.secret-token")
    settings = Settings.load(env_file=None)
    assert settings.has_token
    for text in (repr(settings), str(settings), f"{settings}", str(settings.model_dump())):
        assert "MTIz.secret-token" not in text
    assert settings.discord_token.get_secret_value() == "MTIz.secret-token"


def test_env_file_is_read_and_the_environment_wins(environ, tmp_path):
    env = tmp_path / ".env"
    env.write_text("# settings\nexport DISCORD_TOKEN='abc # not a comment'\nDEV_GUILD_ID=42  # the test server\n"
                   "DATABASE_PATH=\"games/dune.sqlite3\"\n\nLOG_LEVEL=debug\nSOMETHING_ELSE=ignored\n")
    environ(LOG_LEVEL="warning")
    settings = Settings.load(env_file=env)
    assert settings.discord_token.get_secret_value() == "abc # not a comment"
    assert settings.dev_guild_id == 42 and settings.database_path == Path("games/dune.sqlite3")
    assert settings.log_level == "WARNING"
    environ(DEV_GUILD_ID="")
    assert Settings.load(env_file=env).dev_guild_id == 42  # empty counts as unset


def test_errors_name_the_variable_and_never_echo_its_value(environ, tmp_path):
    environ(DEV_GUILD_ID="12ab-secretish", LOG_LEVEL="chatty-secretish", DATABASE_URL="mysql://u:hunter2@db/x")
    with pytest.raises(ConfigError) as error:
        Settings.load(env_file=None)
    assert error.value.problems == [
        "DEV_GUILD_ID: must be a Discord server id (a whole number)",
        "DATABASE_URL: must be a PostgreSQL URL: postgresql://user:password@host:port/database",
        "LOG_LEVEL: must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL",
    ]
    assert not any(secret in str(error.value) for secret in ("secretish", "hunter2", "mysql"))
    environ(DEV_GUILD_ID="1", LOG_LEVEL="INFO", DATABASE_URL="postgresql://u:hunter2@db:port/x")
    with pytest.raises(ConfigError, match="^DATABASE_URL: must be a PostgreSQL URL") as error:
        Settings.load(env_file=None)
    assert "hunter2" not in str(error.value)


def test_a_malformed_env_file_line_is_named_by_its_number_not_its_content(environ, tmp_path):
    env = tmp_path / ".env"
    env.write_text("DISCORD_TOKEN=fine\nDEV_GUILD_ID='12\nthis is not a setting\n")
    with pytest.raises(ConfigError) as error:
        Settings.load(env_file=env)
    assert [problem.split(": ", 1)[0] for problem in error.value.problems] == [f"{env} line 2", f"{env} line 3"]
    assert "this is not" not in str(error.value) and "'12" not in str(error.value)


def test_database_url_selects_postgres_and_its_password_is_never_shown(environ):
    environ(DATABASE_URL="postgresql://mentat:hunter2@db.example:5432/dune", DATABASE_PATH="ignored.sqlite3")
    settings = Settings.load(env_file=None)
    assert settings.uses_postgres and settings.store_location == "postgresql://mentat:hunter2@db.example:5432/dune"
    assert settings.store_description == "PostgreSQL, postgresql://mentat:***@db.example:5432/dune (DATABASE_URL)"
    for text in (repr(settings), str(settings), str(settings.model_dump()), settings.store_description):
        assert "hunter2" not in text
    assert shown_url("postgres://db.example/dune") == "postgres://db.example/dune"  # no password to hide


def test_a_log_line_never_shows_the_token(caplog):
    logger = logging.getLogger("test.redact")
    caplog.handler.addFilter(RedactSecret("MTIz.secret-token"))
    with caplog.at_level(logging.INFO, logger="test.redact"):
        logger.info("connecting with %s", "MTIz.secret-token")
    assert "MTIz.secret-token" not in caplog.text and "**********" in caplog.text
