"""The engine's seeded generator: same seed, same numbers, on every machine."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.rng import Rng


def test_same_seed_same_sequence_and_known_first_value():
    a, b = Rng.from_seed(42), Rng.from_seed(42)
    assert [a.next_u64() for _ in range(5)] == [b.next_u64() for _ in range(5)]
    # SplitMix64's published first output for seed 0; pins the algorithm across Python versions.
    assert Rng.from_seed(0).next_u64() == 0xE220A8397B1DCDAF


def test_below_stays_in_range_and_covers_it():
    rng = Rng.from_seed(7)
    counts = Counter(rng.below(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert min(counts.values()) > 850


def test_shuffle_is_a_permutation_and_depends_on_the_seed():
    first, second = list(range(30)), list(range(30))
    Rng.from_seed(1).shuffle(first)
    Rng.from_seed(2).shuffle(second)
    assert sorted(first) == list(range(30)) and first != second


def test_state_round_trips_through_json():
    rng = Rng.from_seed(99)
    rng.below(10)
    copy = Rng.model_validate_json(rng.model_dump_json())
    assert copy.next_u64() == rng.next_u64()


def test_a_named_draw_hands_out_its_scripted_values_first_then_draws_from_the_generator():
    """A scenario fixes a random draw (engine/positions/documents.py `draws`); the generator is untouched meanwhile."""
    rng = Rng(state=5, scripted={"trap_leader": ["b", "a"]})
    plain = Rng(state=5)
    assert [rng.draw("trap_leader", "abc"), rng.draw("trap_leader", "abc")] == ["b", "a"]
    assert rng.scripted == {} and rng.state == 5
    assert rng.draw("trap_leader", "abc") == plain.choice("abc")
    assert Rng(state=5, scripted={"other": ["b"]}).draw("trap_leader", "abc") == Rng(state=5).choice("abc")


def test_a_scripted_value_that_is_not_among_the_choices_is_refused():
    with pytest.raises(ValueError, match="the scripted trap_leader draw 'zed' is not one of"):
        Rng(state=5, scripted={"trap_leader": ["zed"]}).draw("trap_leader", ["a", "b"])


def test_a_generator_without_a_script_dumps_as_its_state_alone():
    """So the state hash of a game saved before scripted draws existed is unchanged."""
    assert Rng.from_seed(3).model_dump() == {"state": 3}
    scripted = Rng(state=3, scripted={"trap_leader": ["alia"]})
    assert Rng.model_validate_json(scripted.model_dump_json()) == scripted
