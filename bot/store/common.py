"""What the stores share: the clock that stamps rows, the checks on arguments the port leaves open, the
numbered migration files, how a snapshot kept with an action is packed, and the delivery turn of a store that one
process alone uses."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from bot.app.ports import RECHECK, DueAt, Shards

Clock = Callable[[], datetime]

OUTBOX_STATUSES = frozenset({"pending", "sent", "undeliverable"})
# The due time stored for a game to look at again at the next tick (RECHECK, and the games running when the due
# times came in): before any moment a tick asks about.
DUE_AT_ONCE = datetime(1970, 1, 1, tzinfo=UTC)


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """The same moment in UTC; a naive datetime is refused, since guessing its zone would shift it silently."""
    if moment.tzinfo is None:
        raise ValueError(f"timestamp {moment} has no time zone")
    return moment.astimezone(UTC)


def stored_due(due_at: DueAt) -> datetime | None:
    """A write's due time as stored: RECHECK is due at once."""
    if due_at is RECHECK:
        return DUE_AT_ONCE
    return as_utc(due_at) if due_at is not None else None


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


def pack_snapshot(state_json: str, next_json: str) -> bytes:
    """A snapshot kept with the action applied to it, as stored: zlib-compressed with the snapshot that action made
    (`next_json`) as its dictionary, since it mostly repeats it: a 7-faction game's 7 KiB of JSON packs to some 130
    bytes (2.2 KiB without the dictionary) in some 0.1 ms. So it reads back only from that next snapshot: a game's
    kept snapshots are unpacked from its current one backwards (`unpack_snapshots`)."""
    packer = zlib.compressobj(zdict=next_json.encode())
    return packer.compress(state_json.encode()) + packer.flush()


def unpack_snapshots(current: tuple[int, str], packed: Iterable[tuple[int, bytes | None]]) -> tuple[int, str]:
    """From a game's current (version, snapshot) and the snapshots kept with its actions (action seq, as packed),
    newest first: the earliest version whose snapshot reads back, and that snapshot. The walk stops at an action
    that kept none, or whose snapshot does not unpack from the next one (zlib checks the dictionary's checksum)."""
    version, text = current
    for seq, snapshot in packed:
        if snapshot is None or seq != version:
            break
        try:
            unpacker = zlib.decompressobj(zdict=text.encode())
            text = (unpacker.decompress(snapshot) + unpacker.flush()).decode()
        except zlib.error:
            break
        version = seq - 1
    return version, text


def migration_files(directory: Path) -> list[tuple[int, Path]]:
    """The directory's migrations, `NNNN_name.sql`, in number order."""
    files = []
    for path in directory.glob("*.sql"):
        number = path.stem.partition("_")[0]
        if not number.isdigit():
            raise ValueError(f"migration {path.name} must start with its number, as in 0001_init.sql")
        files.append((int(number), path))
    numbers = [number for number, _ in files]
    if len(set(numbers)) != len(numbers):
        raise ValueError(f"two migrations in {directory} share a number")
    return sorted(files)


class SingleProcessTurn:
    """GameStore.delivery_turn for a store that only this process uses (SQLite, memory): no other process can
    deliver, so the turn only keeps two drains of this process from delivering the same rows at once (the
    second one gets no shard)."""

    def __init__(self) -> None:
        self._busy = False

    @asynccontextmanager
    async def __call__(self, shards: Shards) -> AsyncIterator[Shards]:
        if self._busy:
            yield Shards(frozenset(), shards.count)
            return
        self._busy = True
        try:
            yield shards
        finally:
            self._busy = False
