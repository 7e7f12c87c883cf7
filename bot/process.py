"""The bot process's garbage collector, tuned for a server that keeps many games' states parsed in memory.

CPython collects its youngest generation every 700 net allocations of container objects. A submit parses and
builds a whole game state (thousands of pydantic objects), so each submit set off several collections, and the
collections of the oldest generation scanned again and again the 1,024 states the service keeps parsed
(bot/app/service.py STATE_CACHE_SIZE). In the benchmark that was most of the steady arrivals' tail and a third of
a burst's time (docs/performance.md). Reference counting frees almost every object of a state; the collector is
there only for cycles, so running it far less often costs little memory.
"""

from __future__ import annotations

import gc

# Youngest generation: a collection every 50,000 net allocations (was 700); the two older ones: after 20 and 100
# collections of the one below (were 10 and 10).
GC_THRESHOLDS = (50_000, 20, 100)


def tune_garbage_collector() -> None:
    """For a long-running process, once its modules are imported: what exists now lives as long as the process
    (modules, the game data), so the collector never scans it again; then the thresholds above."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
