"""The benchmark's delivery figures (bench/delivery_figures.py), shortened: clicks in one game, timed through the
Discord model to their last message delivered, alone and beside busy games."""

from __future__ import annotations

from bench import delivery_figures
from bench.delivery_figures import GIVE_UP, LATENCY, one_scene


async def test_each_click_is_timed_to_its_last_message_delivered_through_the_model():
    alone = await one_scene(samples=4, others=0, busy_interval=60.0, seed=1)
    assert alone["n"] == 4 and alone["busy_answers"] == 0
    assert LATENCY * 1000 <= alone["p50_ms"] <= alone["p99_ms"] < GIVE_UP * 1000  # at least one request's way
    assert alone["requests_served"] > 0 and alone["undelivered_after_give_up"] == 0
    assert (alone["bot_errors"], alone["tokens_used_late"]) == (0, 0)


async def test_busy_games_answer_cards_meanwhile_on_the_same_bot(monkeypatch):
    monkeypatch.setattr(delivery_figures, "THINK", 10.0)
    busy = await one_scene(samples=3, others=2, busy_interval=5.0, seed=1)
    assert busy["n"] == 3 and busy["busy_games"] == 2 and busy["busy_answers"] >= 2
    assert busy["bot_errors"] == 0
