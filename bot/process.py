"""The bot process: its garbage collector, tuned for a server that keeps many games' states parsed in memory, and
the signals that ask it to stop.

CPython collects its youngest generation every 700 net allocations of container objects. A submit parses and
builds a whole game state (thousands of pydantic objects), so each submit set off several collections, and the
collections of the oldest generation scanned again and again the 1,024 states the service keeps parsed
(bot/app/service.py STATE_CACHE_SIZE). In the benchmark that was most of the steady arrivals' tail and a third of
a burst's time (docs/performance.md). Reference counting frees almost every object of a state; the collector is
there only for cycles, so running it far less often costs little memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from collections.abc import Callable, Iterator

log = logging.getLogger(__name__)

# SIGTERM is what Docker, systemd and most supervisors send to stop a service; SIGINT is Ctrl-C.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

# Youngest generation: a collection every 50,000 net allocations (was 700); the two older ones: after 20 and 100
# collections of the one below (were 10 and 10).
GC_THRESHOLDS = (50_000, 20, 100)


def tune_garbage_collector() -> None:
    """For a long-running process, once its modules are imported: what exists now lives as long as the process
    (modules, the game data), so the collector never scans it again; then the thresholds above."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@contextlib.contextmanager
def stop_on_signals(stop: Callable[[], None]) -> Iterator[None]:
    """While inside, in a coroutine: SIGTERM and SIGINT call `stop` on the event loop (which then finishes what it
    is doing and closes cleanly) instead of ending the process wherever it stands."""
    loop = asyncio.get_running_loop()

    def received(number: signal.Signals) -> None:
        log.info("%s received: stopping once the work in progress is done", number.name)
        stop()

    for number in STOP_SIGNALS:
        loop.add_signal_handler(number, received, number)
    try:
        yield
    finally:
        for number in STOP_SIGNALS:
            loop.remove_signal_handler(number)
