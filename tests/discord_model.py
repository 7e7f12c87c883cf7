"""A model of what Discord enforces and SimCord does not, laid over SimCord's HTTP layer for end-to-end tests.

SimCord serves every REST call of discord.py through one function, `simcord.http.router.dispatch(backend, method,
path, json=...)`, and turns a `BackendError` raised there into the `discord.HTTPException` Discord's answer would
give (403 Forbidden, 404 NotFound, else HTTPException with the JSON error code). `DiscordModel` wraps that function
for one SimCord environment and asks each of its rules about every request first; a rule may refuse it (raise a
`BackendError`), change SimCord's state the way Discord would (unarchive a thread), or answer it itself. Each rule
also hears the virtual clock move (`env.advance_time`), to do what Discord does with time.

Rules are small classes with two methods, `request(backend, call)` and `clock_moved(backend)`, so later tests can
add Discord's other clocks and limits to the same model: a rule answering 429 with `retry_after` past a route's
budget (rate limits), or one refusing an interaction's webhook routes 15 minutes after the interaction
(interaction tokens expire, code 50027). Latency needs an await, which `dispatch` (synchronous) cannot give: it
belongs in a wrapper of `FakeHTTPClient.request`, the async layer above it.

The only rule so far is `ThreadArchiving`; its docstring cites Discord's documentation for each behaviour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

import discord
from simcord.backend import serializers
from simcord.backend.errors import BackendError
from simcord.http import router
from simcord.types import HttpLogEntry

ARCHIVED_THREAD = 50083  # Discord's JSON error code: "Operation cannot be performed on an archived thread"
MISSING_PERMISSIONS = 50013
SETTLE = 0.001  # seconds of virtual time that let the bot's due timers run


@dataclass(frozen=True)
class Call:
    """One REST request as Discord receives it: its method, its path after /api/v10, and its JSON body."""

    method: str
    path: str
    json: Any


class Rule(Protocol):
    def request(self, backend: Any, call: Call) -> Any | None:
        """Refuse the call (raise BackendError), prepare for it, or answer it (return a non-None payload)."""

    def clock_moved(self, backend: Any) -> None:
        """The virtual clock moved: do what Discord does on its own with time."""


class DiscordModel:
    """Discord's rules over one SimCord environment's HTTP layer, for as long as the test runs (install with
    pytest's monkeypatch, which takes it away after the test)."""

    def __init__(self, env: Any, *rules: Rule):
        self.env, self.backend = env, env.backend
        self.rules = list(rules)

    async def pass_quiet_time(self, seconds: float) -> None:
        """Let `seconds` pass in which the bot has nothing to do, in one step, and then let its due timers run.
        `env.advance_time` stops at each turn of the bot's 3-second outbox loop, so a week (200,000 turns) would
        outlast SimCord's settle timeout; with nothing to deliver, those turns do nothing."""
        self.backend.advance_clock(seconds)
        await self.env.advance_time(SETTLE)

    def install(self, monkeypatch: Any) -> DiscordModel:
        served = router.dispatch
        backend = self.backend

        def dispatch(target: Any, method: str, path: str, **request: Any) -> Any:
            if target is not backend:  # another environment: not modelled
                return served(target, method, path, **request)
            self._tell_clock()
            call = Call(method, path, request.get("json"))
            for rule in self.rules:
                try:
                    answer = rule.request(target, call)
                except BackendError:
                    target.http_requests.append(_logged(call))  # SimCord logs the calls it serves, refused or not
                    raise
                if answer is not None:
                    target.http_requests.append(_logged(call))
                    return answer
            return served(target, method, path, **request)

        advance = backend.advance_clock

        def advance_clock(seconds: float) -> None:
            advance(seconds)
            self._tell_clock()

        monkeypatch.setattr(router, "dispatch", dispatch)
        monkeypatch.setattr(backend, "advance_clock", advance_clock)
        return self

    def _tell_clock(self) -> None:
        for rule in self.rules:
            rule.clock_moved(self.backend)


def _logged(call: Call) -> HttpLogEntry:
    return HttpLogEntry(call.method, call.path, {}, call.json, None)


ID_SEGMENT = re.compile(r"^\d+$")
TOKEN_AFTER = ("webhooks", "interactions")  # /webhooks/{id}/{token}/..., /interactions/{id}/{token}/callback


def route_of(method: str, path: str) -> str:
    """A request's route, as Discord's rate limits and our counts group requests: its method and its path with
    each id (and an interaction's token) in braces, e.g. "PATCH /channels/{id}/messages/{id}"."""
    segments = path.strip("/").split("/")
    named = ["{id}" if ID_SEGMENT.match(s) else s for s in segments]
    for i in range(len(segments) - 2):
        if segments[i] in TOKEN_AFTER and named[i + 1] == "{id}":
            named[i + 2] = "{token}"
    return f"{method} /" + "/".join(named)


THREAD_ITSELF = re.compile(r"^/channels/(\d+)$")
THREAD_WRITES = re.compile(r"^/channels/(\d+)/(?:messages|pins)(?:/.*)?$")


class ThreadArchiving:
    """Threads archive after their auto-archive duration without a new message, and an archived thread takes no
    change until it is unarchived. From Discord's developer documentation (discord-api-docs, Topics > Threads
    and Resources > Channel):

    - Thread metadata: `auto_archive_duration` is "the thread will stop showing in the channel list after
      auto_archive_duration minutes of inactivity, can be set to: 60, 1440, 4320, 10080"; `archive_timestamp` is
      the "timestamp when the thread's archive status was last changed, used for calculating recent activity".
      Here a thread archives once that many minutes have passed since the later of its last message and its
      archive timestamp (its creation or its last unarchiving), and Discord tells the bot by a Thread Update
      gateway event (which is how discord.py's cache learns it: it drops the archived thread).
    - Threads, "Archiving & Unarchiving": "Sending a message, adding or removing a member, or any other action in
      an archived thread will unarchive it, unless the thread is locked"; and "when a thread is locked, only users
      with MANAGE_THREADS can unarchive it". Here a message the bot posts in an archived thread unarchives it when
      the thread is not locked (or the bot holds Manage Threads) and the bot may Send Messages in Threads; else it
      is refused with 50083.
    - Modify Channel (thread): "When setting archived to false, when locked is also false, only the
      SEND_MESSAGES permission is required. Otherwise, requires the MANAGE_THREADS permission." and it "Requires
      the thread to have archived set to false or be set to false in the request". Here a PATCH of the thread
      with `archived: false` unarchives it under those permissions (SimCord itself asks Manage Channels for any
      channel edit), and a 403 (50013, Missing Permissions) answers a locked thread without Manage Threads.
    - JSON error code 50083, "Operation cannot be performed on an archived thread" (the API's message reads
      "Thread is archived", HTTP 400): any other write in an archived thread (a message edited, deleted, pinned)
      is refused with it.
    """

    def clock_moved(self, backend: Any) -> None:
        now = backend.clock.now()
        for thread in backend.channels.values():
            metadata = thread.thread_metadata
            if metadata is None or metadata.archived:
                continue
            due = _last_activity(thread) + timedelta(minutes=metadata.auto_archive_duration)
            if now >= due:
                metadata.archived = True
                metadata.archive_timestamp = due.isoformat()
                backend.announce_channel_update(thread.id)

    def request(self, backend: Any, call: Call) -> Any | None:
        if call.method == "PATCH" and (itself := THREAD_ITSELF.match(call.path)):
            return self._unarchive_asked(backend, int(itself[1]), call)
        writes = THREAD_WRITES.match(call.path)
        if call.method == "GET" or writes is None:
            return None
        thread = backend.channels.get(int(writes[1]))
        if thread is None or thread.thread_metadata is None or not thread.thread_metadata.archived:
            return None
        if call.method == "POST" and call.path.endswith("/messages") and self._may_unarchive(backend, thread):
            self._unarchive(backend, thread)  # the new message then goes in as SimCord serves it
            return None
        raise BackendError(400, ARCHIVED_THREAD, "Thread is archived")

    def _unarchive_asked(self, backend: Any, thread_id: int, call: Call) -> Any | None:
        thread = backend.channels.get(thread_id)
        body = call.json if isinstance(call.json, dict) else {}
        if thread is None or thread.thread_metadata is None or body.get("archived") is not False:
            return None
        if set(body) != {"archived"}:  # other changes in the same edit: SimCord serves them as a channel edit
            return None
        if thread.thread_metadata.archived:
            if not self._may_unarchive(backend, thread):
                raise BackendError(403, MISSING_PERMISSIONS, "Missing Permissions")
            self._unarchive(backend, thread)
        return dict(serializers.channel_payload(backend, thread))

    @staticmethod
    def _may_unarchive(backend: Any, thread: Any) -> bool:
        granted = backend.compute_permissions(thread.guild_id, backend.bot_user.id, thread.id)
        needed = discord.Permissions(send_messages_in_threads=True)
        if thread.thread_metadata.locked:
            needed.manage_threads = True
        return discord.Permissions(granted) >= needed

    @staticmethod
    def _unarchive(backend: Any, thread: Any) -> None:
        thread.thread_metadata.archived = False
        thread.thread_metadata.archive_timestamp = backend.now_iso()
        backend.announce_channel_update(thread.id)


def _last_activity(thread: Any) -> datetime:
    changed = datetime.fromisoformat(thread.thread_metadata.archive_timestamp)
    if thread.last_message_id is None:
        return changed
    return max(changed, discord.utils.snowflake_time(thread.last_message_id))
