"""A model of what Discord enforces and SimCord does not, laid over SimCord's HTTP layer for end-to-end tests.

SimCord serves every REST call of discord.py through one function, `simcord.http.router.dispatch(backend, method,
path, json=...)`, and turns a `BackendError` raised there into the `discord.HTTPException` Discord's answer would
give (403 Forbidden, 404 NotFound, else HTTPException with the JSON error code). `DiscordModel` wraps that function
for one SimCord environment and asks each of its rules about every request first; a rule may refuse it (raise a
`BackendError`), change SimCord's state the way Discord would (unarchive a thread), or answer it itself. Each rule
also hears the virtual clock move (`env.advance_time`), to do what Discord does with time.

Rules are small classes with two methods, `request(backend, call)` and `clock_moved(backend)`:
`ThreadArchiving` (threads archive and then refuse edits) and `InteractionTokens` (an interaction's token expires
after 15 minutes). Their docstrings cite Discord's documentation for each behaviour.

What needs an await is not a rule: `dispatch` is synchronous. The model also wraps the async layer above it,
`FakeHTTPClient.request` (the bot's REST calls) and `FakeWebhookAdapter.request` (interaction answers and
follow-ups), where each request first waits its latency and then asks `RateLimits` whether its buckets have room
(see `Transport`). Waits are `asyncio.sleep`s of the bot's own tasks, which SimCord parks on its virtual clock: a
request takes virtual time, and `env.advance_time` lets it pass.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

import discord
from simcord.backend import serializers
from simcord.backend.errors import BackendError, SetupError
from simcord.http import router
from simcord.http.client import FakeHTTPClient, FakeWebhookAdapter, _FakeResponse, _path_of
from simcord.types import HttpLogEntry

ARCHIVED_THREAD = 50083  # Discord's JSON error code: "Operation cannot be performed on an archived thread"
MISSING_PERMISSIONS = 50013
INVALID_WEBHOOK_TOKEN = 50027  # Discord's JSON error code: "Invalid Webhook Token"
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

    def __init__(self, env: Any, *rules: Rule, transport: Transport | None = None):
        self.env, self.backend = env, env.backend
        self.rules = list(rules)
        self.transport = transport
        self.refusals: list[tuple[str, int]] = []  # the requests a rule refused: route, JSON error code

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
                except BackendError as refusal:
                    target.http_requests.append(_logged(call))  # SimCord logs the calls it serves, refused or not
                    self.refusals.append((route_of(method, path), refusal.code))
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
        if self.transport is not None:
            self._install_transport(monkeypatch)
        return self

    def _install_transport(self, monkeypatch: Any) -> None:
        transport, backend = self.transport, self.backend
        requested, answered = FakeHTTPClient.request, FakeWebhookAdapter.request

        async def request(client: Any, route: Any, **options: Any) -> Any:
            if client.backend is not backend:
                return await requested(client, route, **options)
            return await transport.carry(self.env, route.method, _path_of(route.url),
                                         lambda: requested(client, route, **options))

        async def webhook_request(adapter: Any, route: Any, session: Any, **options: Any) -> Any:
            if adapter.backend is not backend:
                return await answered(adapter, route, session, **options)
            return await transport.carry(self.env, route.method, _path_of(route.url),
                                         lambda: answered(adapter, route, session, **options))

        monkeypatch.setattr(FakeHTTPClient, "request", request)
        monkeypatch.setattr(FakeWebhookAdapter, "request", webhook_request)

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


SHORTEST_ARCHIVE_MINUTES = 60  # the shortest auto_archive_duration Discord offers (60, 1440, 4320, 10080)
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

    def __init__(self) -> None:
        # No thread can archive before this: the soonest due time at the last look, or the shortest duration
        # after it (a thread opened or unarchived since counts its inactivity from then). Saves reading every
        # channel at every move of the clock, which with a hundred games was most of a benchmark's time.
        self.quiet_until: datetime | None = None

    def clock_moved(self, backend: Any) -> None:
        now = backend.clock.now()
        if self.quiet_until is not None and now < self.quiet_until:
            return
        soonest = now + timedelta(minutes=SHORTEST_ARCHIVE_MINUTES)
        for thread in backend.channels.values():
            metadata = thread.thread_metadata
            if metadata is None or metadata.archived:
                continue
            due = _last_activity(thread) + timedelta(minutes=metadata.auto_archive_duration)
            if now >= due:
                metadata.archived = True
                metadata.archive_timestamp = due.isoformat()
                backend.announce_channel_update(thread.id)
            else:
                soonest = min(soonest, due)
        self.quiet_until = soonest

    def request(self, backend: Any, call: Call) -> Any | None:
        if call.method == "PATCH" and (itself := THREAD_ITSELF.match(call.path)):
            self.quiet_until = None  # its duration may have changed
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


INTERACTION_ROUTE = re.compile(r"^/interactions/(\d+)/([^/]+)/callback$")
FOLLOWUP_ROUTE = re.compile(r"^/webhooks/\d+/([^/]+)(?:/.*)?$")


@dataclass
class InteractionTokens:
    """An interaction's token is good for 15 minutes. From Discord's developer documentation (discord-api-docs,
    Interactions > Receiving and Responding): "Interaction tokens are valid for 15 minutes, meaning you can respond
    to an interaction within that amount of time", and the token is what the callback
    (`POST /interactions/{id}/{token}/callback`), the follow-ups (`POST /webhooks/{application.id}/{token}`) and
    the original response's edits (`PATCH /webhooks/{application.id}/{token}/messages/@original`) are addressed
    by. Past that, Discord answers HTTP 401 with JSON error code 50027, "Invalid Webhook Token" (Topics > Opcodes
    and Status Codes, JSON Error Codes). Here each such use after 15 minutes is refused so, and counted in `late`
    (its route and how many seconds after the interaction it came). SimCord refuses an expired token too, but
    as an unknown webhook (10015, HTTP 404), which is not what the bot would meet.

    The interaction's moment is its id's (a snowflake holds its creation time; SimCord's follow its virtual
    clock). The 3-second limit on the first answer is SimCord's own (it refuses a late callback)."""

    lifetime: timedelta = timedelta(minutes=15)
    late: list[tuple[str, float]] = field(default_factory=list)

    def clock_moved(self, backend: Any) -> None:
        return None

    def request(self, backend: Any, call: Call) -> Any | None:
        found = INTERACTION_ROUTE.match(call.path) or FOLLOWUP_ROUTE.match(call.path)
        if found is None:
            return None
        interaction_id = backend.interaction_tokens.get(found.groups()[-1])
        if interaction_id is None:  # a webhook's own token, not an interaction's
            return None
        age = (backend.clock.now() - discord.utils.snowflake_time(interaction_id)).total_seconds()
        if age < self.lifetime.total_seconds():
            return None
        self.late.append((route_of(call.method, call.path), age))
        raise BackendError(401, INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")


@dataclass(frozen=True)
class Budget:
    """So many requests in a window of so many seconds."""

    requests: int
    seconds: float


MESSAGE_CREATE = re.compile(r"^/channels/(\d+)/messages$")
MESSAGE_EDIT = re.compile(r"^/channels/(\d+)/messages/(\d+)$")
GLOBAL_EXEMPT = ("/interactions/", "/webhooks/")  # interaction endpoints (see RateLimits)


@dataclass
class RateLimits:
    """Discord's rate limits: buckets of requests per route and the global limit. From Discord's developer
    documentation (discord-api-docs, Topics > Rate Limits):

    - "All bots can make up to 50 requests per second to our API", "independent of any individual rate limit on
      a route" (the global rate limit); and "Interaction endpoints are not bound to the bot's Global Rate Limit"
      (so the callbacks and follow-ups, under /interactions/ and /webhooks/, are left out of it here).
    - Per-route limits are counted per bucket, and a route's "top-level resources" (a channel id) give it
      separate buckets: "Per-route rate limits may be shared across multiple, similar-use routes (or even the
      same route with a different HTTP method)". Discord does not publish the numbers ("rate limits should not be
      hard coded"): here, as issue 24 assumes, `creates` (POST /channels/{id}/messages) and `edits` (PATCH
      /channels/{id}/messages/{id}) each allow 5 requests per 5 seconds per channel; both are parameters.
    - Past a limit Discord answers HTTP 429 with a JSON body holding `message`, `retry_after` ("The number of
      seconds to wait before submitting another request") and `global` ("A value indicating if you are being
      globally rate limited or not").

    A bucket's window opens at its first request and closes `seconds` later (X-RateLimit-Reset-After counts from
    then); a request past its budget is answered 429 with the time left in the window, and does not count."""

    creates: Budget = Budget(5, 5.0)
    edits: Budget = Budget(5, 5.0)
    everything: Budget = Budget(50, 1.0)
    windows: dict[Any, list[float]] = field(default_factory=dict)  # bucket: [opened at, requests counted]

    def admit(self, now: float, method: str, path: str) -> tuple[float, bool] | None:
        """None when the request may go now (and it is counted); else (retry_after, global) for Discord's 429."""
        buckets = []
        if not path.startswith(GLOBAL_EXEMPT):
            buckets.append(("global", self.everything))
        if method == "POST" and (created := MESSAGE_CREATE.match(path)):
            buckets.append((("create", created[1]), self.creates))
        elif method == "PATCH" and (edited := MESSAGE_EDIT.match(path)):
            buckets.append((("edit", edited[1]), self.edits))
        for key, budget in buckets:
            window = self.windows.get(key)
            if window is not None and now < window[0] + budget.seconds and window[1] >= budget.requests:
                return window[0] + budget.seconds - now, key == "global"
        for key, budget in buckets:
            window = self.windows.get(key)
            if window is None or now >= window[0] + budget.seconds:
                self.windows[key] = [now, 1]
            else:
                window[1] += 1
        return None


TRIES = 5  # discord.py's HTTPClient.request sends a request at most five times (429s and server errors)


@dataclass
class Transport:
    """The way to Discord and back: each request takes `latency` seconds of virtual time before Discord serves it,
    then meets the `limits` (none: no rate limit).

    On a 429, discord.py's `HTTPClient.request` (and its webhook adapter's) sleeps `retry_after` and sends the
    request again, five tries in all, then raises `HTTPException` (status 429). SimCord replaces that method
    whole, so discord.py's handling never runs here: this transport does the same instead, with the sleep on the
    virtual clock. It differs in one way, said plainly: discord.py reads each bucket's remaining budget from the
    X-RateLimit headers and waits before sending a request that would be refused, so on Discord most of the 429s
    counted here would be waits with no request sent. The time a message waits is the same.

    The waits are declared to SimCord as waits on something outside the bot (`env.external_wait`): their timers
    are then virtual from the start and fire only as the test moves the clock (`env.advance_time`). Undeclared,
    SimCord would also fire them on the wall clock, and a game's thousands of requests would take as many tenths
    of a second of real time. So the bot's work on an interaction (its answer, a follow-up) is not done when
    SimCord's click returns: the driver lets the time it needs pass (InteractionResult reads the answer live).

    Counted: every request Discord served, with its virtual time (`served`: seconds on SimCord's clock, method,
    path), and every 429 (`refused`: time, route, retry_after, global)."""

    latency: float = 0.1
    limits: RateLimits | None = field(default_factory=RateLimits)
    served: list[tuple[float, str, str]] = field(default_factory=list)
    refused: list[tuple[float, str, float, bool]] = field(default_factory=list)

    async def carry(self, env: Any, method: str, path: str, send: Any) -> Any:
        for _ in range(TRIES):
            if self.latency:
                await _wait(env, self.latency, "a request on its way to Discord")
            now = env.backend.clock.elapsed
            limited = self.limits.admit(now, method, path) if self.limits is not None else None
            if limited is None:
                self.served.append((now, method, path))
                return await send()
            retry_after, is_global = limited
            self.refused.append((now, route_of(method, path), retry_after, is_global))
            await _wait(env, retry_after, "a 429's retry_after")
        raise discord.HTTPException(_FakeResponse(429), {"message": "You are being rate limited.",
                                                         "retry_after": retry_after, "global": is_global})


async def _wait(env: Any, seconds: float, reason: str) -> None:
    """Sleep on the virtual clock alone, when the bot's own work waits (see Transport); a test's own call (not in
    a task of the bot's) sleeps as usual."""
    try:
        await env.external_wait(asyncio.sleep(seconds), reason=reason)
    except SetupError:  # not bot-owned work: SimCord refuses the declaration (and closes the sleep unawaited)
        await asyncio.sleep(seconds)
