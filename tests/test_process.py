"""The bot process's garbage collector (bot/process.py): what the bot and the benchmark's bot processes run with."""

from __future__ import annotations

import gc

from bot.process import GC_THRESHOLDS, tune_garbage_collector


def test_the_collector_runs_far_less_often_and_never_rescans_what_the_imports_made():
    thresholds = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_threshold() == GC_THRESHOLDS and GC_THRESHOLDS[0] > 50 * thresholds[0]
        assert gc.get_freeze_count() > 1000  # the modules' objects, out of every later collection's way
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
