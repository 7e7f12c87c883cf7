"""A gateway that records what the service sends, and the drain of the outbox into it."""

from __future__ import annotations

from bot.app.ports import DeliveryFailed
from tests.conftest import A, F, H

USERS = {A: 101, H: 102, F: 103}


class RecordingGateway:
    """Delivers into lists: the channel's posts and the lines added to them, the turn threads' posts and lines, the
    status board as last replaced, each faction's DMs. DMs to the factions in `closed` fail as closed DMs do (and so
    does the DM probe)."""

    def __init__(self, closed: set[str] = frozenset(), broken: int = 0):
        self.channel: list[str] = []
        self.threads: list[str] = []
        self.status = ""
        self.dms: dict[str, list[str]] = {}
        self.closed = set(closed)
        self.broken = broken  # the next N deliveries fail with a transient error
        self.probed: list[str] = []
        self.outbox_ids: list[int] = []
        self.told_moderators: list[tuple[str, int | None, str]] = []

    async def deliver(self, game, message, then=()):
        ref = None
        for part in (message, *then):  # a merged edit: each row's text, in order
            ref = await self._deliver(part)
        return ref

    async def _deliver(self, message):
        if self.broken:
            self.broken -= 1
            raise ConnectionError("Discord is down")
        faction = message.recipient.faction
        if message.edit_of is not None and message.edit_ref is None:
            pass  # the message to change was never posted: nothing to do
        elif faction is None and message.replace:
            self.status = message.text
        elif faction is None:
            (self.threads if message.recipient.thread else self.channel).append(message.text)
        elif faction in self.closed:
            raise DeliveryFailed(faction)
        else:
            self.dms.setdefault(faction, []).append(message.text)
        self.outbox_ids.append(message.outbox_id)
        return f"place-{message.outbox_id}"

    async def find(self, game, message, since, then=()):
        return None  # this fake never loses a send: whatever failed did not arrive

    async def tell_moderators(self, game, moderator_role, text):
        self.told_moderators.append((game.game_id, moderator_role, text))

    async def can_dm(self, game, faction):
        self.probed.append(faction)
        return faction not in self.closed


async def drain(service, gateway) -> None:
    """Deliver until the outbox is empty (a failed DM queues a notice for the next round)."""
    while await service.store.pending_outbox(limit=1):
        await service.deliver(gateway)
