"""The benchmark's disk probe (bench/disk_probe.py): it times syncs while a measurement runs, counts only those
of the measured window, and leaves nothing behind."""

from __future__ import annotations

import threading

from bench import disk_probe
from bench.disk_probe import DiskProbe
from bench.timing import now


def test_the_probe_times_syncs_in_the_window_only_and_removes_its_file(tmp_path, monkeypatch):
    monkeypatch.setattr(disk_probe, "RATE", 200.0)
    synced = threading.Event()
    real_fdatasync = disk_probe.os.fdatasync

    def fdatasync(descriptor: int) -> None:
        real_fdatasync(descriptor)
        synced.set()

    monkeypatch.setattr(disk_probe.os, "fdatasync", fdatasync)
    with DiskProbe(tmp_path) as probe:
        assert synced.wait(5)
        window = now()
        synced.clear()
        assert synced.wait(5)
    assert list(tmp_path.iterdir()) == []
    everything, windowed, later = probe.figures(since=0.0), probe.figures(since=window), probe.figures(since=now())
    assert windowed["n"] >= 1 and everything["n"] > windowed["n"]
    assert later == {"n": 0}
    assert everything["max_ms"] >= everything["p99_ms"] >= everything["p50_ms"] >= 0
    assert 0 <= everything["stalls_over_50_ms"] <= everything["n"]
