"""What both stores share: the clock that stamps rows, and the checks on arguments the port leaves open."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]

OUTBOX_STATUSES = frozenset({"pending", "sent", "undeliverable"})


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """The same moment in UTC; a naive datetime is refused, since guessing its zone would shift it silently."""
    if moment.tzinfo is None:
        raise ValueError(f"timestamp {moment} has no time zone")
    return moment.astimezone(UTC)


def check_outbox_status(status: str) -> None:
    if status not in OUTBOX_STATUSES:
        raise ValueError(f"outbox status must be one of {sorted(OUTBOX_STATUSES)}, not {status!r}")


def check_imported_actions(game_id: str, seq: int, actions: list) -> None:
    """An imported game's actions are exactly its versions 1..seq, in order."""
    if [action.seq for action in actions] != list(range(1, seq + 1)):
        raise ValueError(f"game {game_id} is at seq {seq}; its actions must be numbered 1..{seq} in order")


def check_keep(game_id: str, keep: int, seq: int) -> None:
    """Undo may only go back: keep between 0 (the start) and the game's current seq."""
    if not 0 <= keep <= seq:
        raise ValueError(f"game {game_id} is at seq {seq}; cannot keep {keep} actions")
