"""The disk's own sync latency while a measurement runs: a durable commit cannot return before its sync, so a
store's tail is no better than the disk's at that moment.

A thread writes one 4 KiB block at a time over a small file made beforehand (rewriting blocks, as a commit
log does once it has grown) and syncs it (`fdatasync`), at a low steady rate, for as long as the measurement
lasts; each sync is timed. Its load is small next to the measured store's (20 syncs a second against a few
hundred commits). It syncs on this machine's disk: with --database-url, not necessarily the database's."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import TracebackType

from bench.timing import now, spread

BLOCK = 4096
BLOCKS = 64  # the file's size in blocks: rewritten in turn, so it never grows during the measurement
RATE = 20.0  # syncs a second
STALL_MS = 50.0  # a sync longer than the steady target: every commit waiting behind it misses the target


class DiskProbe:
    """`with DiskProbe(directory) as probe: ...` then `probe.figures(since)`."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self._path = Path(directory) / "disk-probe.bin"
        self._stop = threading.Event()
        self._timings: list[tuple[float, float]] = []  # (when it started, how long it took)
        self._thread = threading.Thread(target=self._run, name="disk-probe", daemon=True)

    def __enter__(self) -> DiskProbe:
        with self._path.open("wb") as file:
            file.write(b"\0" * BLOCK * BLOCKS)
            file.flush()
            os.fsync(file.fileno())
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        self._path.unlink(missing_ok=True)

    def _run(self) -> None:
        descriptor = os.open(self._path, os.O_WRONLY)
        try:
            block = 0
            while not self._stop.wait(1 / RATE):
                os.pwrite(descriptor, os.urandom(BLOCK), block * BLOCK)
                started = now()
                os.fdatasync(descriptor)
                self._timings.append((started, now() - started))
                block = (block + 1) % BLOCKS
        finally:
            os.close(descriptor)

    def figures(self, since: float) -> dict[str, float]:
        """The count, p50, p99 and max (ms) of the syncs started at `since` or later (the clock of
        bench.timing), and how many of them took longer than STALL_MS."""
        timings = [took for started, took in self._timings if started >= since]
        if not timings:
            return {"n": 0}
        return {**spread(timings), "stalls_over_50_ms": sum(took * 1000 > STALL_MS for took in timings)}
