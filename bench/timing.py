"""Percentiles and the clock the benchmark reads (the engine never reads one)."""

from __future__ import annotations

import math
import time

now = time.perf_counter
cpu_now = time.process_time  # this process's CPU time: what other processes cannot inflate


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile (fraction 0.5 for p50, 0.99 for p99) of a non-empty list."""
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def spread(samples: list[float]) -> dict[str, float]:
    """How many samples (in seconds), and their p50, p99 and max in milliseconds."""
    return {"n": len(samples), "p50_ms": ms(percentile(samples, 0.5)), "p99_ms": ms(percentile(samples, 0.99)),
            "max_ms": ms(max(samples))}
