"""The bot's settings, from the environment and an optional `.env` file (the environment wins).

    DISCORD_TOKEN   the bot token; needed to run, not to check the configuration. Never shown or logged.
    DEV_GUILD_ID    optional: a server id whose slash commands are synced at start (they appear at once there)
    DATABASE_PATH   the SQLite file (default mentat.sqlite3)
    LOG_LEVEL       DEBUG, INFO, WARNING, ERROR or CRITICAL (default INFO)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError, field_validator

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
VARIABLES = ("DISCORD_TOKEN", "DEV_GUILD_ID", "DATABASE_PATH", "LOG_LEVEL")


class ConfigError(Exception):
    """The configuration is missing something or malformed; each problem names its variable or line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    discord_token: SecretStr | None = None
    dev_guild_id: int | None = None
    database_path: Path = Path("mentat.sqlite3")
    log_level: str = "INFO"

    @field_validator("dev_guild_id", mode="before")
    @classmethod
    def _guild_id(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip().isdigit():
            raise ValueError(f"must be a Discord server id (a whole number), got {value!r}")
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: object) -> object:
        if isinstance(value, str):
            if value.strip().upper() not in LOG_LEVELS:
                raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}, got {value!r}")
            return value.strip().upper()
        return value

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, env_file: str | os.PathLike[str] | None = ".env",
             ) -> Settings:
        """Read the settings: `env_file` (if it exists) overridden by `environ` (default: os.environ).
        Empty values count as unset (an empty environment variable does not hide the file's value).
        Raises ConfigError naming every problem."""
        values = read_env_file(env_file) if env_file is not None and Path(env_file).is_file() else {}
        environ = os.environ if environ is None else environ
        values.update({name: environ[name] for name in VARIABLES if environ.get(name, "").strip()})
        fields = {name.lower(): value.strip() for name, value in values.items() if name in VARIABLES and value.strip()}
        try:
            return cls(**fields)
        except ValidationError as error:
            raise ConfigError([f"{'.'.join(map(str, e['loc'])).upper()}: {e['msg'].removeprefix('Value error, ')}"
                               for e in error.errors()]) from None

    @property
    def has_token(self) -> bool:
        return self.discord_token is not None and bool(self.discord_token.get_secret_value())


def read_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """A small `.env` reader: `NAME=value` lines, optional `export `, `#` comments, blank lines, and values
    in single or double quotes (kept as written). Raises ConfigError naming each malformed line."""
    values: dict[str, str] = {}
    problems: list[str] = []
    for number, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").lstrip()
        name, equals, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name.isidentifier():
            problems.append(f"{path} line {number}: expected NAME=value")
            continue
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            if end == -1:
                problems.append(f"{path} line {number}: {name}'s value has no closing {quote}")
                continue
            value = value[1:end]
        else:
            value = value.split(" #", 1)[0].strip()
        values[name] = value
    if problems:
        raise ConfigError(problems)
    return values
