"""Two games played alike but for one secret action: what the secrecy tests compare."""

from __future__ import annotations

from engine.checks.autoplay import play_until_stuck
from engine.game import apply, new_game
from engine.model import Phase
from engine.rng import Rng
from tests.conftest import make_setup


def twin_games(seed, first_secret, second_secret, until=Phase.BATTLE, **options):
    """Play the same game twice, with one secret action swapped; the rest is played identically."""
    state, events = new_game(make_setup(seed=seed, **options))
    results = []
    for secret in (first_secret, second_secret):
        s, e = apply(state, secret(state))
        # Play on until the secret may rightly come out: a traitor in the first battles, a trap when it strikes
        # at the start of the battle round (the action that ends the movement round).
        s, _, more = play_until_stuck(s, Rng.from_seed(seed), while_=lambda st: st.phase != until)
        results.append((s, events + e + more))
    return results
