"""The log is the game: a game file is its setup plus its actions, with the hash of the state they reach."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ValidationError

from engine.actions import Action
from engine.errors import ReplayMismatch, RuleViolation
from engine.events import Event
from engine.game import Transition, apply, new_game, state_hash
from engine.model import GameState
from engine.options import GameSetup
from engine.version import __version__

FORMAT: Final = "mentat-game/1"


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


def replay_steps(setup: GameSetup, actions: Iterable[Action]) -> Iterator[Transition]:
    """Play the actions from the setup, version by version: the opening's state and events, then each action's;
    every action must still be legal."""
    state, events = new_game(setup)
    yield Transition(state, events)
    for number, action in enumerate(actions, start=1):
        try:
            state, events = apply(state, action)
        except RuleViolation as refusal:
            raise ReplayMismatch(f"action {number} ({action.type}) is refused on replay: {refusal}") from None
        yield Transition(state, events)


def replay(setup: GameSetup, actions: list[Action]) -> tuple[GameState, list[Event]]:
    """Play the actions from the setup; every action must still be legal."""
    events: list[Event] = []
    for step in replay_steps(setup, actions):  # only the last state is kept: a long game's would be megabytes
        events += step.events
    return step.state, events


def record_game(setup: GameSetup, actions: list[Action], state: GameState) -> GameRecord:
    return GameRecord(setup=setup, actions=list(actions), state_hash=state_hash(state), engine_version=__version__)


def verify(record: GameRecord) -> GameState:
    """Replay a record and check that it reaches the recorded state. A file written by another version of Mentat
    that fails says so: its rules, not the file, may be what changed."""
    return verify_history(record)[0]


def verify_history(record: GameRecord) -> tuple[GameState, list[list[Event]]]:
    """`verify`, keeping the events of each version: the opening's, then each action's."""
    events: list[list[Event]] = []
    try:
        for step in replay_steps(record.setup, record.actions):
            events.append(step.events)
    except ReplayMismatch as refused:
        raise ReplayMismatch(f"{refused}{_another_version(record)}") from None
    state = step.state
    actual = state_hash(state)
    if actual != record.state_hash:
        raise ReplayMismatch(
            f"the replayed state (hash {actual[:12]}) differs from the recorded one "
            f"(hash {record.state_hash[:12]}): the actions or the setup were altered{_another_version(record)}"
        )
    return state, events


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
