"""The bot's settings, from the environment and an optional `.env` file (the environment wins), read by
pydantic-settings (which reads `.env` through python-dotenv).

    DISCORD_TOKEN   the bot token; needed to run, not to check the configuration. Never shown or logged.
    DEV_GUILD_ID    optional: a server id whose slash commands are synced at start (they appear at once there)
    DISCORD_APPLICATION_ID  optional: the bot's application id, for the invite URL `mentat check` prints when the
                    token is not set or does not tell it
    DATABASE_URL    optional: a postgresql:// URL; the games are then stored in that PostgreSQL database, which
                    several bot processes (each running some shards) may share. Its password is never shown.
    DATABASE_PATH   the SQLite file, when DATABASE_URL is not set (default mentat.sqlite3)
    LOG_LEVEL       DEBUG, INFO, WARNING, ERROR or CRITICAL (default INFO)
    GAME_FILE_KEY   the key that signs exported game files (bot/app/game_files.py); written into .env at the
                    first run when it is missing. Never shown.

A malformed value is reported with its variable's name, never with the value itself (it may be a secret
pasted into the wrong variable).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from dotenv.parser import parse_stream
from pydantic import SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
POSTGRES_SCHEMES = ("postgresql", "postgres")


class ConfigError(Exception):
    """The configuration is missing something or malformed; each problem names its variable or line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


class Settings(BaseSettings):
    # Empty values count as unset (an empty environment variable does not hide the file's value); names
    # other than these fields (in the environment or the file) are ignored.
    model_config = SettingsConfigDict(frozen=True, extra="ignore", env_ignore_empty=True,
                                      env_file_encoding="utf-8", str_strip_whitespace=True)

    discord_token: SecretStr | None = None
    dev_guild_id: int | None = None
    discord_application_id: int | None = None
    database_url: SecretStr | None = None
    database_path: Path = Path("mentat.sqlite3")
    log_level: str = "INFO"
    game_file_key: SecretStr | None = None

    @field_validator("dev_guild_id", "discord_application_id", mode="before")
    @classmethod
    def _discord_id(cls, value: object, info: ValidationInfo) -> object:
        if isinstance(value, str) and not value.strip().isdigit():
            what = "server" if info.field_name == "dev_guild_id" else "application"
            raise ValueError(f"must be a Discord {what} id (a whole number)")
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: object) -> object:
        if isinstance(value, str):
            if value.strip().upper() not in LOG_LEVELS:
                raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
            return value.strip().upper()
        return value

    @field_validator("database_url", mode="before")
    @classmethod
    def _postgres_url(cls, value: object) -> object:
        text = value.get_secret_value() if isinstance(value, SecretStr) else value
        if isinstance(text, str):
            try:
                parts = urlsplit(text.strip())
                parts.port  # noqa: B018 - raises on a port that is not a number
            except ValueError:
                parts = None
            if parts is None or parts.scheme not in POSTGRES_SCHEMES or not (parts.hostname or parts.query):
                raise ValueError("must be a PostgreSQL URL: postgresql://user:password@host:port/database")
        return value

    @classmethod
    def load(cls, env_file: str | os.PathLike[str] | None = ".env") -> Settings:
        """Read the settings: `env_file` (if it exists) overridden by the environment. Raises ConfigError
        naming every problem (a malformed line of the file by its number)."""
        path = Path(env_file) if env_file is not None and Path(env_file).is_file() else None
        if path is not None:
            check_env_file(path)
        try:
            return cls(_env_file=path)
        except ValidationError as error:
            raise ConfigError([f"{'.'.join(map(str, e['loc'])).upper()}: {e['msg'].removeprefix('Value error, ')}"
                               for e in error.errors()]) from None

    def with_file_key(self, env_file: str | os.PathLike[str] | None) -> Settings:
        """These settings with a GAME_FILE_KEY: the one set, or a new one written into `env_file` (created if
        need be) so that the files this bot signs still import after a restart."""
        if self.game_file_key is not None:
            return self
        key = secrets.token_hex(32)
        if env_file is not None:
            path = Path(env_file)
            before = path.read_text(encoding="utf-8") if path.is_file() else ""
            separator = "" if before == "" or before.endswith("\n") else "\n"
            path.write_text(f"{before}{separator}# Signs exported game files; keep it secret, keep it the same.\n"
                            f"GAME_FILE_KEY={key}\n", encoding="utf-8")
        return self.model_copy(update={"game_file_key": SecretStr(key)})

    @property
    def file_key(self) -> bytes | None:
        return self.game_file_key.get_secret_value().encode() if self.game_file_key is not None else None

    @property
    def token(self) -> str:
        """The bot token ("" when DISCORD_TOKEN is not set: `has_token` says)."""
        return self.discord_token.get_secret_value() if self.discord_token is not None else ""

    @property
    def has_token(self) -> bool:
        return bool(self.token)

    @property
    def uses_postgres(self) -> bool:
        return self.database_url is not None

    @property
    def store_location(self) -> str:
        """Where the games are stored, as the stores are opened with it: the URL (with its password), or the
        SQLite file. Not for showing: see `store_description`."""
        return self.database_url.get_secret_value() if self.database_url is not None else str(self.database_path)

    @property
    def store_description(self) -> str:
        """The store, as shown to the person running the bot: the URL's password is masked."""
        if self.database_url is None:
            return f"SQLite, file {self.database_path} (DATABASE_PATH)"
        return f"PostgreSQL, {shown_url(self.database_url.get_secret_value())} (DATABASE_URL)"


def shown_url(url: str) -> str:
    """A database URL fit to show: its password replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = f"{parts.username}:***@" if parts.username else ":***@"
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=user + host).geturl()


def check_env_file(path: str | os.PathLike[str]) -> None:
    """Raise ConfigError naming each line of the file that python-dotenv cannot read (it would skip them
    with no more than a warning), without its content."""
    with open(path, encoding="utf-8") as stream:
        problems = [f"{path} line {binding.original.line}: expected NAME=value (a quote left open?)"
                    for binding in parse_stream(stream) if binding.error]
    if problems:
        raise ConfigError(problems)
