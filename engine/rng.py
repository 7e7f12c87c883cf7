"""A deterministic random source whose whole state is one integer kept in the game state.

The engine never touches the `random` module: the same seed and the same actions must give the same
game on every machine and Python version, so the generator (SplitMix64) is spelled out here.

A scenario may fix the outcome of a named draw (a position's `draws`, engine/positions/documents.py): `draw` hands out
those scripted values first, then falls back to the generator.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

T = TypeVar("T")

_MASK = (1 << 64) - 1


class Rng(BaseModel):
    state: int
    scripted: dict[str, list[str]] = Field(default_factory=dict)  # draw name -> values to hand out, in order

    @model_serializer(mode="wrap")
    def _without_an_empty_script(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A game without scripted draws dumps as before they existed, so that the states (and the state hashes
        of saved games) of every real game are unchanged."""
        dumped: dict[str, Any] = handler(self)
        if not self.scripted:
            dumped.pop("scripted", None)
        return dumped

    @classmethod
    def from_seed(cls, seed: int) -> Rng:
        return cls(state=seed & _MASK)

    def derived(self, label: str) -> Rng:
        """A new generator made from this one's state and a label, leaving this one as it is: for a choice that
        must look random yet be a pure function of the state (a forced default must not change the state)."""
        salt = int.from_bytes(hashlib.blake2b(label.encode(), digest_size=8).digest(), "big")
        return Rng(state=self.state ^ salt)

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection so that no value is favoured."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self.next_u64()
            if value < limit:
                return value % n

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def draw(self, name: str, items: Sequence[str]) -> str:
        """A named random choice: the next scripted value for `name` if one is left (it must be among `items`),
        else a choice from the generator."""
        queue = self.scripted.get(name)
        if not queue:
            return self.choice(items)
        value = queue.pop(0)
        if not queue:
            del self.scripted[name]
        if value not in items:
            raise ValueError(f"the scripted {name} draw {value!r} is not one of {list(items)}")
        return value

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
