"""The log is the game: a game file is its setup plus its actions, with the hash of the state they reach."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from engine import __version__
from engine.actions import Action
from engine.errors import ReplayMismatch, RuleViolation
from engine.events import Event
from engine.game import apply, new_game, state_hash
from engine.model import GameState
from engine.options import GameSetup

FORMAT = "mentat-game/1"


class GameRecord(BaseModel):
    format: Literal["mentat-game/1"] = FORMAT
    setup: GameSetup
    actions: list[Action]
    state_hash: str
    # The Mentat that wrote the file (engine.__version__); None in files from before versions were recorded.
    # Another version's rules may replay the same actions differently.
    engine_version: str | None = None


class InvalidRecord(ReplayMismatch):
    """The file is not a game record at all."""


def replay(setup: GameSetup, actions: list[Action]) -> tuple[GameState, list[Event]]:
    """Play the actions from the setup; every action must still be legal."""
    state, events = new_game(setup)
    for number, action in enumerate(actions, start=1):
        try:
            state, new_events = apply(state, action)
        except RuleViolation as refusal:
            raise ReplayMismatch(f"action {number} ({action.type}) is refused on replay: {refusal}") from None
        events += new_events
    return state, events


def record_game(setup: GameSetup, actions: list[Action], state: GameState) -> GameRecord:
    return GameRecord(setup=setup, actions=list(actions), state_hash=state_hash(state), engine_version=__version__)


def verify(record: GameRecord) -> GameState:
    """Replay a record and check that it reaches the recorded state. A file written by another version of Mentat
    that fails says so: its rules, not the file, may be what changed."""
    try:
        state, _ = replay(record.setup, record.actions)
    except ReplayMismatch as refused:
        raise ReplayMismatch(f"{refused}{_another_version(record)}") from None
    actual = state_hash(state)
    if actual != record.state_hash:
        raise ReplayMismatch(
            f"the replayed state (hash {actual[:12]}) differs from the recorded one "
            f"(hash {record.state_hash[:12]}): the actions or the setup were altered{_another_version(record)}"
        )
    return state


def _another_version(record: GameRecord) -> str:
    """Why a file may fail besides an alteration: it was written by another version of Mentat."""
    if record.engine_version == __version__:
        return ""
    made_by = (f"Mentat {record.engine_version}" if record.engine_version is not None
               else "a Mentat from before 0.2.0 (the first to write its version into its files)")
    return (f". This file was made by {made_by} and this is Mentat {__version__}: the rules may have changed "
            "between them, so replay it with the version that made it")


def save_record(record: GameRecord, path: Path) -> None:
    path.write_text(record.model_dump_json(indent=1) + "\n", encoding="utf-8")


def load_record(path: Path) -> GameRecord:
    try:
        return GameRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidRecord(f"cannot read {path}: {error}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InvalidRecord(f"{path} is not a valid game record: {where}: {first['msg']}") from None
