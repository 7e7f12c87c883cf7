"""A Gateway for the console: channel posts are printed at once, DMs wait in per-faction inboxes.

Hot seat: several players share one screen, so a DM is never printed until its faction's player asks for it
(`inbox`). `closed` holds factions whose DMs are refused, as closed DMs are on Discord, to show the fallback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from bot.app.ports import DeliveryFailed, GameRecordRow, OutgoingMessage

CHANNEL_PREFIX = "[#game] "


class ConsoleGateway:
    def __init__(self, out: Callable[[str], None] = print) -> None:
        self.out = out
        self.inboxes: dict[str, list[str]] = {}  # faction value -> DM texts, oldest first
        self.fresh: Counter[str] = Counter()  # DMs delivered since the last `take_fresh`
        self.closed: set[str] = set()

    async def deliver(self, game: GameRecordRow, message: OutgoingMessage) -> None:
        faction = message.recipient.faction
        if faction is None:
            for line in message.text.splitlines() or [""]:
                self.out(CHANNEL_PREFIX + line)
            return
        if faction in self.closed:
            raise DeliveryFailed(f"{faction} does not accept DMs")
        self.inboxes.setdefault(faction, []).append(message.text)
        self.fresh[faction] += 1

    def take_inbox(self, faction: str) -> list[str]:
        """The faction's DMs, removed from its inbox."""
        return self.inboxes.pop(faction, [])

    def take_fresh(self) -> Counter[str]:
        fresh, self.fresh = self.fresh, Counter()
        return fresh
