"""A Gateway for the console: channel posts are printed at once, DMs wait in per-faction inboxes.

Hot seat: several players share one screen, so a DM is never printed until its faction's player asks for it
(`inbox`). `closed` holds factions whose DMs are refused, as closed DMs are on Discord, to show the fallback.

With a delivery file (`--deliveries FILE`), every delivered message is first appended to that file with its
outbox id and fsynced: the file plays the platform's history. The gateway does not deduplicate: after a crash
the service asks `find` whether a send it had begun arrived (bot/app/service.py deliver), as it asks Discord's
history; the crash test reads the file and counts every row delivered twice.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from bot.app.feed import STATUS_KEY
from bot.app.ports import MENTION, DeliveryFailed, GameRecordRow, OutgoingMessage
from engine.ids import Faction
from engine.names import faction_name

CHANNEL_PREFIX = "[#game] "
CLOSED_PREFIX = "(decision card closed) "
DISCORD_TIME = re.compile(r"<t:(\d{1,12}):\w>")


def readable_times(text: str) -> str:
    """Discord timestamps (<t:1767261600:f>) as UTC times: the console has no client to show them."""
    return DISCORD_TIME.sub(lambda m: datetime.fromtimestamp(int(m[1]), UTC).strftime("%Y-%m-%d %H:%M UTC"), text)


class DeliveryFile:
    """An append-only file of delivered messages, one JSON object a line: {"outbox_id", "to", "text"}."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.delivered: set[int | None] = set()  # outbox ids (None: a message given without its row's)
        if path.exists():
            data = path.read_bytes()
            whole = data[:data.rfind(b"\n") + 1]  # a line cut short by a kill was never fsynced: not delivered
            if len(whole) != len(data):
                with path.open("r+b") as cut:
                    cut.truncate(len(whole))
            self.delivered = {json.loads(line)["outbox_id"] for line in whole.decode().splitlines()}

    def record(self, message: OutgoingMessage) -> None:
        """Append the message durably, as the platform shows it from then on. No check: a second delivery of
        one outbox row is written twice, which the crash test counts (the service must never do it)."""
        line = json.dumps({"outbox_id": message.outbox_id, "to": message.recipient.faction or "#channel",
                           "text": message.text}) + "\n"
        with self.path.open("ab") as file:
            file.write(line.encode())
            file.flush()
            os.fsync(file.fileno())
        self.delivered.add(message.outbox_id)


class ConsoleGateway:
    def __init__(self, out: Callable[[str], None] = print, deliveries: Path | None = None) -> None:
        self.out = out
        self.inboxes: dict[str, list[str]] = {}  # faction value -> DM texts, oldest first
        self.fresh: Counter[str] = Counter()  # DMs delivered since the last `take_fresh`
        self.closed: set[str] = set()
        self.deliveries = DeliveryFile(deliveries) if deliveries is not None else None
        self.threads: dict[str, str] = {}  # a thread's opening post (its place) -> " > <thread name>"
        self.status = ""  # the status board, as last replaced

    async def deliver(self, game: GameRecordRow, message: OutgoingMessage,
                      then: Sequence[OutgoingMessage] = ()) -> str | None:
        """Deliver the message, and the later edits of the same message merged with it (`then`) one by one as
        the platform's one change: after a kill amid them, only those not in the delivery file yet."""
        if not then:
            return await self._deliver(game, message)
        ref = message.edit_ref
        for part in (message, *then):
            if self.deliveries is None or part.outbox_id not in self.deliveries.delivered:
                ref = await self._deliver(game, part)
        return ref

    async def _deliver(self, game: GameRecordRow, message: OutgoingMessage) -> str | None:
        """Print a channel post (a thread's with the thread's name), or put a DM in its inbox. An edit prints
        (or files) only what it adds: a card's closing line arrives as a DM of its own, a phase post's new lines
        print as posts; a replaced status board is kept in `status`, not printed. Returns the message's place:
        its outbox id."""
        faction = message.recipient.faction
        if faction is not None and faction in self.closed:
            raise DeliveryFailed(f"{faction} does not accept DMs")
        if self.deliveries is not None:
            self.deliveries.record(message)
        text = readable_times(MENTION.sub(lambda m: "@" + faction_name(Faction(m[1])), message.text))
        if message.edit_of is not None and message.edit_ref is None:  # the message to change never arrived
            return None
        if message.edit_of == STATUS_KEY:  # the status board: kept, shown by `table` and /game status
            self.status = text
            return message.edit_ref
        if faction is None:
            prefix = f"[#game{self.threads[message.thread_ref]}] " if message.thread_ref in self.threads \
                else CHANNEL_PREFIX
            for line in text.splitlines() or [""]:
                self.out(prefix + line)
            if message.opens_thread:
                self.threads[str(message.outbox_id)] = f" > {message.opens_thread}"
            return message.edit_ref or str(message.outbox_id)
        # an edit closes a decision card; a card asked again, or lines added to a growing DM, arrive anew
        closing = message.edit_ref is not None and message.prompt_id is None and message.key is None
        self.inboxes.setdefault(faction, []).append(f"{CLOSED_PREFIX}{text}" if closing else text)
        self.fresh[faction] += 1
        return message.edit_ref or str(message.outbox_id)

    async def find(self, game: GameRecordRow, message: OutgoingMessage, since: datetime,
                   then: Sequence[OutgoingMessage] = ()) -> str | None:
        """A send cut off by a crash: the delivery file is what the platform shows (a merged edit shows when each
        of its parts is there); without one (a plain console session, which cannot crash between the two),
        nothing was delivered."""
        if self.deliveries is not None and all(part.outbox_id in self.deliveries.delivered
                                                for part in (message, *then)):
            return message.edit_ref or str(message.outbox_id)
        return None

    async def tell_moderators(self, game: GameRecordRow, moderator_role: int | None, text: str) -> None:
        """The console's moderator is at the screen: printed."""
        self.out(f"[to the moderators] {text}")

    async def can_dm(self, game: GameRecordRow, faction: str) -> bool:
        """The console cannot send a probe anywhere: a faction's DMs are open unless `dm close` shut them."""
        return faction not in self.closed

    def take_inbox(self, faction: str) -> list[str]:
        """The faction's DMs, removed from its inbox."""
        return self.inboxes.pop(faction, [])

    def take_fresh(self) -> Counter[str]:
        fresh, self.fresh = self.fresh, Counter()
        return fresh
