"""The game service: the one place where a request becomes an applied, stored and announced action.

Discord-free (a test enforces it): the Discord cogs, the console and the tests all call this. Each request
takes the game's lock, loads the snapshot, checks who may act, applies the engine, and commits the action,
the new snapshot and the outgoing messages in one transaction (the outbox), which `deliver` then drains.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import Field, StrictInt, ValidationError

from bot.app import absence, trouble
from bot.app.decision_cards import timestamp
from bot.app.delivery import STALLED_AT, Courier
from bot.app.feed import CANCELLED, cancellation_text, status_board, status_opening
from bot.app.game_files import sign, signature_holds
from bot.app.history import RulesChanged, events_json, kept_events, last_untold, replay_until, shown
from bot.app.hours import (
    QUIET_OWED,
    HoursBook,
    HoursRefused,
    PlayerHours,
    changed_hours,
    hours_text,
    quiet_hours_over,
)
from bot.app.lobby import LOBBY_KEY, lobby_text
from bot.app.paces import ANY_KIND, Pace, duration, kind_words, pace_deadlines
from bot.app.ports import (
    ALL_SHARDS,
    GameExists,
    GameRecordRow,
    GameStatus,
    GameStore,
    Gateway,
    OutgoingMessage,
    Recipient,
    SeatChanged,
    Shards,
    StoredAction,
    VersionConflict,
    mention,
)
from bot.app.render import (
    action_messages,
    cancelled_cards,
    card_in_place,
    decision_card,
    end_of_game_reveal,
    messages_for,
)
from bot.app.seats import (
    SEAT_CALLS,
    SEAT_CALLS_MADE,
    STORY_LENGTH,
    call_post,
    call_taken,
    catch_up,
    now_played_by,
    old_cards_closed,
    with_former_player,
)
from bot.app.settings_model import GameSettings
from bot.app.votes import (
    MAX_EXTEND_HOURS,
    MAX_PAUSE_HOURS,
    TABLE,
    TABLE_PAUSE,
    VOTE,
    VOTE_PASSED,
    VOTES_MADE,
    VoteKind,
    ballot,
    ballot_answered,
    ballot_closed,
    closes_at,
    earliest,
    hours_words,
    new_vote,
    opening_post,
    overridden_post,
    pause_end,
    result_post,
    tally,
    timers_due,
    vote_seat,
    vote_words,
)
from engine import __version__, apply, new_game
from engine.actions import Action, AdminAction, ForceDefault, PlayerAction, parse_action
from engine.errors import ReplayMismatch, RuleViolation
from engine.events import Event, EventType
from engine.flow import blocking_prompts
from engine.ids import Faction
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.names import (
    decision_name,
    decision_topic,
    faction_does,
    faction_name,
    faction_possessive,
    the_faction,
)
from engine.options import GameOptions, GameSetup
from engine.record import GameRecord, record_game, verify_history
from engine.rules.admin import ABSENCE_ADMIN, DEADLINE_ADMIN
from engine.secrecy.views import view

log = logging.getLogger(__name__)

LOG_LENGTH = 20  # entries /game log shows unless asked for another number
MAX_LOG_LENGTH = 500
MAX_GAME_FILE = 5_000_000  # characters: a 15-turn game's file is some 200 kB
IMPORTED_ACTOR = 0  # the actor of an imported game's actions: the file does not say who took them
STATE_CACHE_SIZE = 1024  # games whose parsed snapshot submit keeps: some 30 KiB each as objects
# Reminders of a decision with a deadline: at half its time, then a last call a tenth of its time before it (at
# most an hour before: a day-long deadline calls an hour ahead, a live evening's five minutes 30 s ahead).
HALF, LAST = "half", "last"
STAGE_ORDER = {None: 0, HALF: 1, LAST: 2}
LAST_CALL_SHARE = 0.1
LAST_CALL_MAX = timedelta(hours=1)
PAUSED_AT = "paused_at"  # settings: when the running pause began (ISO 8601); absent while the game runs
PAUSED_FOR = "paused_for"  # settings: {decision: seconds its clock stood still in the pauses since it opened}
# settings: {decision: the rules' reason} of the decisions whose default the engine refused at their deadline: told
# once, and not tried again by every tick (the decision waits for its player or a moderator)
DEFAULT_REFUSED = "default_refused"
PAUSED_GRACE = "The game is paused: these times are as if it resumed now, and move on by as long as the pause lasts."
# Events that show the table (or a player) something hidden until then: undoing past one would let players
# see a secret twice or redraw it, so undo refuses unless forced (peers.md: undo that leaks secrets). The end
# (game_over) is followed by the reveal of every secret (bot/app/render.py).
REVEALING_EVENTS = {
    EventType.CARDS_DEALT, EventType.TRAITORS_DEALT, EventType.CARD_UP, EventType.AUCTION_CARD_SEEN,
    EventType.CARD_BOUGHT, EventType.EXTRA_CARD_DRAWN,
    EventType.SPICE_BLOW, EventType.WORM, EventType.STORM_MOVED, EventType.PLANS_REVEALED,
    EventType.PRESCIENCE_ANSWERED, EventType.TRAITOR_CALLED,
    EventType.DOUBLE_TRAITOR, EventType.SPICE_DECK_SEEN, EventType.TRAP_ATTACK, EventType.BT_ATTACK_RESOLVED,
    EventType.BT_TRAP_RESOLVED,
    EventType.BT_TRAITOR_REVEALED, EventType.CARD_GIVEN, EventType.KARAMA_PLAYED, EventType.CARD_PLAYED,
    EventType.GAME_OVER,
}


class GameFile(GameRecord):
    """A game file as /game export writes it: the engine's record, who sat where (Discord user ids), and the
    bot's signature over both (bot/app/game_files.py)."""

    seats: dict[Faction, StrictInt] = Field(default_factory=dict)
    signature: str | None = None


class ServiceError(Exception):
    """A request the service refuses; the message is for the person who made it."""


class NotFound(ServiceError):
    pass


class NotAllowed(ServiceError):
    pass


class Refused(ServiceError):
    """The rules refuse the action; carries the engine's RuleViolation."""

    def __init__(self, violation: RuleViolation):
        self.violation = violation
        super().__init__(str(violation))


@dataclass(frozen=True)
class Rider:
    """What a caller adds to a correction's own write, in the same transaction: a table vote carried out is marked
    done in the write of what it decided, so that a crash leaves it either done and marked, or neither (never
    done twice: an extension given twice, a voted pause that never ends)."""

    settings: Callable[[dict[str, Any]], dict[str, Any]] = lambda settings: settings
    told: tuple[OutgoingMessage, ...] = ()


NO_RIDER = Rider()


@dataclass(frozen=True)
class Accepted:
    seq: int
    events: list[Event]


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _state(row: GameRecordRow) -> GameState:
    return GameState.model_validate_json(row.state_json)


def _board(state: GameState, settings: dict, due: dict[str, datetime]) -> OutgoingMessage:
    """The status board under these settings: paused or not, who is away, the table's open vote; `due`: prompt id ->
    the due time it shows."""
    typed = GameSettings.of(settings)
    return status_board(state, lambda prompt: due.get(prompt.id), paused=typed.paused_at is not None,
                        away=absence.until_of(settings), vote=typed.table_vote)


def _to_table(text: str, *, logged: bool = False) -> OutgoingMessage:
    return OutgoingMessage(recipient=Recipient(channel=True), text=text, logged=logged)


def _correction(by: str, did: str, reason: str | None, then: str = "") -> OutgoingMessage:
    """A correction the engine does not record, told to the table as the engine tells its own ("Admin mod
    set the storm to sector 9 (table error).") and kept in the game's public log."""
    return _to_table(f"{_author(by)} {did}" + (f" ({reason})" if reason else "") + f"{then}.", logged=True)


def _author(by: str) -> str:
    """Who made a correction, as the table reads it: "Admin mod", or "The table's vote" (bot/app/votes.py)."""
    return "The table's vote" if by == TABLE else f"Admin {by}"


def _lobby_edit(setup: GameSetup, seats: dict[str, int], settings: dict, *, started: bool = False) -> OutgoingMessage:
    """The lobby post as it stands now, in place of what it showed (an imported game has none: nothing to edit)."""
    return OutgoingMessage(recipient=Recipient(channel=True), text=lobby_text(setup, seats, settings, started=started),
                           edit_of=LOBBY_KEY, replace=True)


def _decision(prompt: Prompt) -> str:
    """A decision's key in the game's settings (its reminders, grace and pauses): its decider, kind and opening,
    which it keeps when it is asked again under a new prompt id (engine/flow.py ask_again), so that it keeps one
    due time and one set of reminders."""
    return f"{prompt.faction.value}/{prompt.kind.value}/{prompt.opened_at}"


def _entry(entries: dict, prompt: Prompt, default: Any = None) -> Any:
    """A decision's entry in one of the game's per-decision settings; games kept them by prompt id before."""
    return entries.get(_decision(prompt), entries.get(prompt.id, default))


def _open_entries(entries: dict, state: GameState) -> dict[str, Any]:
    """The entries of the decisions open in `state`, by decision (the others are dropped)."""
    return {_decision(prompt): entry for prompt in state.prompts if (entry := _entry(entries, prompt)) is not None}


def _open_stages(settings: dict, state: GameState) -> dict[str, str]:
    """The reminder each open decision got (HALF or LAST), by decision. A game reminded before the stages
    existed kept a list of the prompts reminded at half time."""
    reminded = GameSettings.of(settings).reminded
    return _open_entries(dict.fromkeys(reminded, HALF) if isinstance(reminded, list) else reminded, state)


def _open_grace(settings: dict, state: GameState) -> dict[str, int]:
    """The extra seconds a moderator gave each open decision (GameService.grace), by decision."""
    return _open_entries(GameSettings.of(settings).grace, state)


def _stopped(settings: dict, prompt: Prompt, now: datetime) -> timedelta:
    """How long a decision's clock stood still: the pauses it went through, and the times the bot could not write
    in the game's channel (STALLED_AT); the running one (of either, or both) up to `now`."""
    began = _stop_began(settings)
    return (timedelta(seconds=_entry(GameSettings.of(settings).paused_for, prompt, 0))
            + (now - began if began is not None else timedelta(0)))


def _stop_began(settings: dict) -> datetime | None:
    """When the running stop of every clock (a pause, a stall, or both) began; None while the clocks run."""
    clock = GameSettings.of(settings)
    return min((moment for moment in (clock.paused_at, clock.stalled_at) if moment is not None), default=None)


def _clock_restarted(settings: dict, state: GameState, now: datetime, stop: str) -> dict:
    """The settings once the clock's `stop` (a pause, PAUSED_AT; a stall, STALLED_AT) ends: the time each open
    decision's clock stood still so far is kept in `paused_for`, and the other stop, if still on, counts from
    now (its time until now is in `paused_for`)."""
    restarted = {key: value for key, value in settings.items() if key != stop}
    restarted[PAUSED_FOR] = {_decision(prompt): round(_stopped(settings, prompt, now).total_seconds())
                             for prompt in state.prompts}
    clock = GameSettings.of(settings)
    for other, began in ((PAUSED_AT, clock.paused_at), (STALLED_AT, clock.stalled_at)):
        if other != stop and began is not None:
            restarted[other] = now.isoformat()
    if (began := _stop_began(settings)) is not None:  # an absence running meanwhile must not count it again
        restarted = absence.stop_ended(restarted, began, now)
    return restarted


def _clock_of(settings: dict, prompt: Prompt, opened: datetime, now: datetime,
              quiet: PlayerHours | None = None) -> tuple[datetime, datetime] | None:
    """A decision's clock, from when it opened: (its start, moved on by the pauses it went through; when it is
    due, its grace included, and moved to the end of the decider's quiet hours when it falls in them), or None
    when its kind has no deadline."""
    clock = GameSettings.of(settings)
    seconds = clock.deadlines.get(prompt.kind.value, clock.deadlines.get(ANY_KIND))
    if seconds is None:
        return None
    start = opened + _stopped(settings, prompt, now) + absence.stood_still(
        settings, prompt.faction, _decision(prompt), opened, now, _stop_began(settings))
    due, grace = start + timedelta(seconds=seconds), timedelta(seconds=_entry(clock.grace, prompt, 0))
    if quiet is None:
        return start, due + grace
    # a grace counts from the due time the decider was shown (GameService.grace), which their quiet hours moved
    return start, quiet.after_quiet(quiet.after_quiet(due) + grace)


def _clocks_stand_still(settings: dict) -> bool:
    """Whether the game's deadlines are stopped (a pause, or the bot cannot write in its channel): then it is never
    due (GameRecordRow.due_at)."""
    return _stop_began(settings) is not None


def _last_call(opened: datetime, expires: datetime) -> datetime:
    return expires - min((expires - opened) * LAST_CALL_SHARE, LAST_CALL_MAX)


def _reminder_times(opened: datetime, expires: datetime,
                    quiet: PlayerHours | None = None) -> tuple[datetime | None, datetime | None]:
    """When a decision open from `opened` until `expires` is reminded: at half time and at the last call, each
    outside the decider's quiet hours (PlayerHours.reminder_time; None: that reminder is not sent)."""
    half, last = opened + (expires - opened) / 2, _last_call(opened, expires)
    if quiet is None:
        return half, last
    return quiet.reminder_time(half, opened, expires), quiet.reminder_time(last, opened, expires)


def _stage_due(opened: datetime, expires: datetime, now: datetime, quiet: PlayerHours | None = None) -> str | None:
    """The reminder a decision due at `expires` has earned by `now`: the last call, half time, or none yet."""
    half, last = _reminder_times(opened, expires, quiet)
    if last is not None and now >= last:
        return LAST
    return HALF if half is not None and now >= half else None


def _next_due(dates: list[tuple[Prompt, datetime, datetime]], settings: dict, state: GameState,
              quiet: dict[str, PlayerHours] | None = None) -> datetime | None:
    """When a game whose decisions have these clocks (`_due_dates`) next has something to do: the earliest
    reminder not sent yet, or expiry, of a decision whose default was not refused, or DM owed to a player whose
    quiet hours end (QUIET_OWED); None when there is none."""
    clock = GameSettings.of(settings)
    stages, refused = _open_stages(settings, state), _open_entries(clock.default_refused, state)
    moments = _absence_moments(settings, state, refused)
    moments += [owed.until for owed in clock.quiet_owed.values()]
    for prompt, opened, expires in dates:
        decision = _decision(prompt)
        if decision in refused or absence.clock_stopped(settings, prompt.faction):
            continue
        stage = stages.get(decision)
        half, last = _reminder_times(opened, expires, (quiet or {}).get(prompt.faction.value))
        later = [moment for moment in ((half, last) if stage is None else (last,) if stage == HALF else ())
                 if moment is not None]
        moments.append(min(later, default=expires))
    return min(moments, default=None)


def _seat_in_play(row: GameRecordRow, faction: Faction, rule: str) -> None:
    """Refuse a seat's change unless the game is started and not over (`rule` says so) and the seat is in it."""
    if row.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
        raise NotAllowed(f"The game is {row.status.value}: {rule}.")
    if faction.value not in {f.value for f in GameSetup.model_validate_json(row.setup_json).factions}:
        raise NotAllowed(f"{faction_name(faction)} is not in this game.")


def _absence_moments(settings: dict, state: GameState, refused: dict) -> list[datetime]:
    """When absences give a game something to do: the end of each (its date, or its cap), and, where an absence
    defaults, at once (since it began) for each open decision of the absent player whose default was not refused."""
    first_end = absence.next_end(settings)
    if first_end is None:  # no one is away
        return []
    moments = [first_end]
    for prompt in blocking_prompts(state):
        if absence.defaults_now(settings, prompt.faction) and _decision(prompt) not in refused:
            moments.append(absence.away(settings)[prompt.faction]["since"])
    return moments


def _clocks(settings: dict, prompts: list[Prompt], opened_times: dict[int, datetime],
            now: datetime, quiet: dict[str, PlayerHours] | None = None) -> list[tuple[Prompt, datetime, datetime]]:
    """The clocks (prompt, start, due) of those of `prompts` that have a deadline, from when each opened; `quiet`:
    the deciders' hours, by faction."""
    clocks = []
    for prompt in prompts:
        opened = opened_times.get(prompt.opened_at)
        clock = (_clock_of(settings, prompt, opened, now, (quiet or {}).get(prompt.faction.value))
                 if opened is not None else None)
        if clock is not None:
            clocks.append((prompt, *clock))
    return clocks


def _player(user_id: int, faction: str) -> str:
    """A seated player as the table reads it: the Discord mention (which the gateways never ping) and the
    faction's own words, which the console and the tests match on."""
    return f"the {faction} player (<@{user_id}>)"


def _channel_busy(game: GameRecordRow | None) -> str:
    """The refusal of a new game in a channel whose game (when known) has not ended."""
    which = f" ({game.game_id}, {game.status.value})" if game is not None else ""
    return (f"This channel already has a game{which}. A new one can be opened here once it is over, or once a "
            "moderator ends it with /admin cancel; or use another channel or thread.")


def _first_problem(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        return f"{'.'.join(str(part) for part in first['loc']) or 'the file'}: {first['msg']}"
    return str(error)


def _file_seats(record: GameFile) -> dict[str, int]:
    """The seats a game file carries (/game export writes them; the engine's own export has none): only
    factions of the game."""
    wrong = [f.value for f in record.seats if f not in record.setup.factions]
    if wrong:
        raise NotAllowed(f"The game file seats {', '.join(wrong)}, which are not factions of this game.")
    return {faction.value: user for faction, user in record.seats.items()}


def _readers_log(told: list[list[Event] | None], lost: tuple[int, str] | None, reader: Faction | None) -> list[dict]:
    """What `reader` was told (public events, and its own) by game version; the versions not shown (`lost`: the last
    of them, and why) as one entry."""
    entries: list[dict] = [{"versions": [0, lost[0]], "not_shown": lost[1]}] if lost is not None else []
    for version, events in enumerate(told):
        seen = [e.message for e in events or () if e.visible_to(reader)]
        if seen:
            entries.append({"version": version, "events": seen})
    return entries


def _public_entries(told: list[list[Event] | None], lost: tuple[int, str] | None, stored: list[StoredAction],
                    opened: datetime | None, opening_told: bool) -> list[tuple[datetime, str]]:
    """What each version showed the table: (when, "v<version> <public events>"); the versions not shown (`lost`:
    the last of them, and why) as one entry. The opening (version 0) only once it was told."""
    entries = []
    if lost is not None and opened and (lost[0] > 0 or opening_told):
        entries.append((opened, f"v0-v{lost[0]} {lost[1]}" if lost[0] else f"v0 {lost[1]}"))
    for version, events in enumerate(told):
        public = [e.message for e in events or () if e.public]
        when = opened if version == 0 else stored[version - 1].created_at
        if public and when and (version > 0 or opening_told):
            entries.append((when, f"v{version} " + " ".join(public)))
    return entries


def _played_under(row: GameRecordRow) -> str:
    return f"Mentat {row.engine_version}" if row.engine_version else "an earlier Mentat"


def _not_shown(row: GameRecordRow, lost: int) -> str:
    """Why a game's versions 0 to `lost` are not in its log: their events were not kept, and a replay under the
    rules installed now does not play them as they were played."""
    versions = "Version 0" if lost == 0 else f"Versions 0 to {lost}"
    return (f"{versions} of this game cannot be shown: {_played_under(row)} played them without keeping what it "
            f"showed, and this Mentat ({__version__}) plays some rules differently, so a replay would not tell them "
            "as they happened.")


class GameService:
    """`shards`: the Discord shards this process runs (several processes may share one PostgreSQL store, each
    running some shards). It delivers the outbox and runs the deadlines of their guilds' games only. Actions
    are taken from wherever they come (a DM's buttons reach shard 0's process): the store's version check
    makes two processes acting on one game harmless.

    `file_key`: the key that signs the game files this bot exports and checks the ones it imports (GAME_FILE_KEY;
    bot/app/game_files.py). Without one, a key of this process alone: its files import only here."""

    def __init__(self, store: GameStore, clock: Callable[[], datetime] = _utcnow, shards: Shards = ALL_SHARDS,
                 file_key: bytes | None = None):
        self.store = store
        self.clock = clock
        self.shards = shards
        self.file_key = file_key if file_key is not None else secrets.token_bytes(32)
        self._locks: dict[str, asyncio.Lock] = {}
        # game_id -> (snapshot JSON, that snapshot parsed), oldest first: what submit last read or made.
        self._states: dict[str, tuple[str, GameState]] = {}
        # game_id -> {game version: when it was reached}, for the versions at which its open decisions opened
        self._opened: dict[str, dict[int, datetime]] = {}
        self.hours = HoursBook(store, clock)  # each player's time zone and quiet hours (bot/app/hours.py)
        self._courier = Courier(store, shards, clock, self._set_reachable, self._channel_state, self.hours,
                                self._silenced)
        self._timers_due: set[str] = set()  # games whose vote or voted pause `_remind` found due (bot/app/votes.py)
        self._carrying: set[tuple[str, int]] = set()  # (game, vote number) being carried out here now

    def _lock(self, game_id: str) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    async def _load(self, game_id: str) -> GameRecordRow:
        row = await self.store.load_game(game_id)
        if row is None:
            raise NotFound(f"There is no game {game_id!r}.")
        return row

    async def _new_game_id(self, channel_id: int) -> str:
        """The id of a new game in the channel, refused while the channel's game has not ended: `g<channel>` for
        its first game, then `g<channel>-2`, `g<channel>-3`... (a game is never deleted, so each id is new)."""
        games = await self.store.games_in_channel(channel_id)
        going = next((game for game in games if game.status != GameStatus.ENDED), None)
        if going is not None:
            raise NotAllowed(_channel_busy(going))
        return f"g{channel_id}-{len(games) + 1}" if games else f"g{channel_id}"

    # --- games and seats ---------------------------------------------------------------------

    async def create_game(self, guild_id: int, channel_id: int, factions: list[Faction],
                          options: GameOptions | None = None, seed: int | None = None, *, pace: Pace = Pace.NONE,
                          creator: int | None = None, absence_mode: str = absence.WAIT) -> GameRecordRow:
        """Open a game in a channel with the pace's deadlines (bot/app/paces.py), and post its lobby: the seats,
        the options and the pace, edited in place as seats fill. `creator` may start it like a moderator.
        `absence_mode`: what a player's absence does (bot/app/absence.py: their deadlines wait, or they default). A
        channel holds one game at a time: a new one once the last has ended (`_new_game_id`)."""
        game_id = await self._new_game_id(channel_id)
        try:
            setup = GameSetup(factions=tuple(factions), options=options or GameOptions(),
                              seed=seed if seed is not None else secrets.randbelow(2**31))
        except ValueError as error:
            raise NotAllowed(f"This game cannot be created: {error}") from None
        state, opening = new_game(setup)
        settings: dict = {"pace": Pace(pace).value}
        if deadlines := pace_deadlines(Pace(pace)):
            settings["deadlines"] = deadlines
        if creator is not None:
            settings["creator"] = creator
        if absence_mode not in absence.ABSENCE_CHOICES:
            raise NotAllowed(f"An absence either waits or defaults, not {absence_mode!r}.")
        if absence_mode != absence.WAIT:  # a game without it waits (the games created before absences existed)
            settings[absence.ABSENCE] = absence_mode
        row = GameRecordRow(game_id=game_id, guild_id=guild_id, channel_id=channel_id,
                            status=GameStatus.OPEN, setup_json=setup.model_dump_json(),
                            state_json=state.model_dump_json(), seq=0, created_at=self.clock(), settings=settings,
                            engine_version=__version__)
        lobby = OutgoingMessage(recipient=Recipient(channel=True), text=lobby_text(setup, {}, settings), key=LOBBY_KEY)
        try:
            await self.store.create_game(row, [lobby], opening_events_json=events_json(opening))
        except GameExists:  # created by someone else a moment ago
            raise NotAllowed(_channel_busy(await self.store.game_in_channel(channel_id))) from None
        return row

    async def seat(self, game_id: str, faction: Faction, user_id: int | None, *, admin: bool = False,
                   by: str = "moderator", reason: str | None = None) -> None:
        """Seat a player (anyone may take a free seat before the start, one seat each; only an admin reseats
        after, or seats one player twice). A seat an admin sets is a correction: announced with its author and
        reason, and logged. Before the start, the lobby post shows the new seats."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            setup = GameSetup.model_validate_json(row.setup_json)
            if faction.value not in {f.value for f in setup.factions}:
                raise NotAllowed(f"{faction.value} is not in this game.")
            taken = row.seats.get(faction.value)
            if not admin and (row.status != GameStatus.OPEN or (taken and taken != user_id)):
                raise NotAllowed("That seat is taken or the game has started; an admin can reseat players.")
            elsewhere = [f for f, user in row.seats.items() if user == user_id and f != faction.value]
            if not admin and elsewhere:
                raise NotAllowed(f"You already play {faction_name(Faction(elsewhere[0]))} in this game: one seat "
                                 "each (a moderator can seat one player twice with /admin seat).")
            who = f"<@{user_id}>" if user_id is not None else "nobody"
            notice = [_correction(by, f"seated {who} as {faction_name(faction)}", reason)] if admin else []
            if row.status == GameStatus.OPEN:
                seats = {f: u for f, u in row.seats.items() if f != faction.value}
                if user_id is not None:
                    seats[faction.value] = user_id
                notice.append(_lobby_edit(setup, seats, row.settings))
            await self._set_seat(game_id, faction, user_id, notice, was=taken)

    async def start(self, game_id: str, probe: Gateway | None = None) -> list[str]:
        """Start the game (or resume an imported one where it stood). With `probe`, first check that every
        seated player receives DMs (the probe is their welcome DM): the table is told who must open them (their
        decisions wait in /me prompts meanwhile) and the game starts all the same. Returns the factions the bot
        cannot DM."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            if row.status != GameStatus.OPEN:
                raise NotAllowed(f"The game has already started (it is {row.status.value}).")
            setup = GameSetup.model_validate_json(row.setup_json)
            empty = [f.value for f in setup.factions if f.value not in row.seats]
            if empty:
                raise NotAllowed(f"These seats are empty: {', '.join(empty)}.")
            unreachable = [f.value for f in setup.factions
                           if probe is not None and not await probe.can_dm(row, f.value)]
            deadline = self._deadline_of(row, await self.hours.seats(row.seats))
            if row.seq == 0:
                state, events = new_game(setup)  # the same game as stored at creation: its deal is announced now
                outbox = [status_opening(state, deadline)] + messages_for(
                    events, None, state, deadline, dm_closed=unreachable)
            else:  # an imported game: its decisions still open are called again
                state = _state(row)
                outbox = [_to_table(f"The game resumes at version {row.seq} (turn {state.turn}, "
                                    f"{state.phase.value.replace('_', ' ')}).")] + messages_for(
                    [], None, state, deadline, dm_closed=unreachable) + [
                    status_opening(state, deadline)]
            outbox += [_to_table(f"The bot cannot DM {_player(row.seats[f], f)}: they must open DMs from server "
                                 "members; until then they use /me prompts.") for f in unreachable]
            outbox.append(_lobby_edit(setup, row.seats, row.settings, started=True))
            settings = {**row.settings, "unreachable": unreachable} if unreachable else row.settings
            if unreachable:
                await self.store.set_settings(game_id, settings)
            started = row if row.started_at else row.model_copy(update={"started_at": self.clock()})
            await self.store.set_status(game_id, GameStatus.RUNNING, outbox, due_at=await self._due_index(
                started, state, settings, GameStatus.RUNNING))
            return unreachable

    async def pause(self, game_id: str, paused: bool, *, by: str = "moderator", reason: str | None = None,
                    rider: Rider = NO_RIDER) -> None:
        """Pause a running game or resume it. A pause stops every clock: no action is taken, no reminder sent and
        no default applied, and at the resume each open decision has the time it had left (its pauses are kept
        by decision in the settings, `paused_for`; the running pause's start in `paused_at`). The status board
        says so at once."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            wanted, needed = (GameStatus.PAUSED, GameStatus.RUNNING) if paused else (GameStatus.RUNNING,
                                                                                   GameStatus.PAUSED)
            if row.status != needed:
                raise NotAllowed(f"The game is {row.status.value}; only a {needed.value} game can be "
                                 f"{'paused' if paused else 'resumed'}.")
            did = "paused the game" if paused else "resumed the game"
            now, state = self.clock(), _state(row)
            if paused:
                settings = {**row.settings, PAUSED_AT: now.isoformat()}
            else:  # a game paused before pauses stopped the clock has no start: its clocks ran
                settings = _clock_restarted(row.settings, state, now, PAUSED_AT)
            settings = rider.settings(settings)
            moved = [_to_table(text, logged=True)  # an absence's end at the cap, moved by the pause
                     for text in absence.cap_moved_texts(row.settings, settings, row.seats)]
            shown = await self._due_shown(row, state, settings)
            await self.store.set_status(game_id, wanted, [_correction(by, did, reason), *moved, *rider.told, *shown],
                                        settings=settings, due_at=await self._due_index(row, state, settings, wanted))

    async def cancel(self, game_id: str, *, by: str, reason: str, rider: Rider = NO_RIDER) -> None:
        """End a game that has not ended (a lobby, a running or a paused game) for good: its status ENDED and who
        cancelled it and why in its settings (`cancellation_text`), in one transaction with what the table is
        told. A lobby's post says so and loses its buttons. A game that had started is over, so nothing in it is
        secret any more: the announcement carries the whole game file (GameService.export), the end-of-game
        reveal follows, every open decision card is closed, and the status board says so. The channel then takes
        a new game; this one stays readable (/game log, /game export)."""
        reason = reason.strip()
        if not reason:
            raise NotAllowed("Say why the game is cancelled: the table is told.")
        async with self._lock(game_id):
            row = await self._load(game_id)
            if row.status == GameStatus.ENDED:
                raise NotAllowed(f"Game {game_id} is already over: there is nothing to cancel.")
            settings = rider.settings({**row.settings, CANCELLED: {"by": by, "reason": reason}})
            then = " /game new opens a new game in this channel"
            if row.status == GameStatus.OPEN:
                setup = GameSetup.model_validate_json(row.setup_json)
                outbox = [_correction(by, "cancelled the game before it started", reason, "." + then),
                          _lobby_edit(setup, row.seats, settings)]
            else:
                state = _state(row)
                told = _correction(by, "cancelled the game", reason, ". The game is over: its whole file, every "
                                   "secret included, is attached (/game export gives it too)." + then)
                outbox = [told.model_copy(update={"attach_game_file": True}), end_of_game_reveal(state),
                          status_board(state, cancelled=cancellation_text(settings)), *cancelled_cards(state)]
            await self.store.set_status(game_id, GameStatus.ENDED, [*outbox, *rider.told], settings=settings,
                                        due_at=None)

    # --- actions -----------------------------------------------------------------------------

    def _check_actor(self, row: GameRecordRow, user_id: int, action: Action, admin: bool) -> None:
        if isinstance(action, AdminAction):
            if not admin:
                raise NotAllowed("Only a moderator (Manage Server, or the server's moderator role) may correct a game.")
            return
        assert isinstance(action, PlayerAction)
        if row.seats.get(action.faction.value) != user_id and not admin:
            raise NotAllowed(now_played_by(row, user_id, action.faction.value)
                             or f"You are not seated as {action.faction.value} in this game.")

    async def submit(self, game_id: str, user_id: int, action: Action, *, admin: bool = False,
                     prompt_id: str | None = None, key: str | None = None) -> Accepted:
        """Apply one action for a seated player (or an admin, logged under the admin's id). `key` makes the
        submission idempotent (the Discord interaction's id: Discord retries an interaction, a client may send it
        twice): a second submission with a key already taken answers with the first's result."""
        async with self._lock(game_id):
            if key is not None and (done := await self.store.action_with_key(game_id, key)) is not None:
                return Accepted(seq=done.seq, events=[])
            row = await self._load(game_id)
            if row.status != GameStatus.RUNNING:
                raise NotAllowed(f"The game is {row.status.value}; actions are not taken now.")
            self._check_actor(row, user_id, action, admin)
            before = self._parsed(row)
            if prompt_id is not None and before.prompt(prompt_id) is None:
                raise NotAllowed("That decision is already closed (a second click, or an old message).")
            try:
                after, events = apply(before, action)
            except RuleViolation as violation:
                raise Refused(violation) from None
            quiet = await self.hours.seats(row.seats)
            (due, due_at), deadline = await self._due_of(row, after, quiet), self._deadline_of(row, quiet)
            # a card's due time is the board's (a decision asked again keeps its own); a decision the game does
            # not wait on has none there, but its deadline
            typed = GameSettings.of(row.settings)
            outbox = action_messages(events, before, action, after, lambda prompt: due(prompt) or deadline(prompt),
                                     due, dm_closed=typed.unreachable, away=absence.until_of(row.settings),
                                     vote=typed.table_vote)
            ended = GameStatus.ENDED if after.phase == Phase.ENDED else None
            after_json = after.model_dump_json()
            try:
                seq = await self.store.commit_action(
                    game_id, row.seq, user_id, action.model_dump_json(), after_json, outbox, status=ended, key=key,
                    engine_version=__version__, events_json=events_json(events), state_before_json=row.state_json,
                    due_at=due_at)
            except VersionConflict:  # another process took this very submission meanwhile, or another action
                if key is not None and (done := await self.store.action_with_key(game_id, key)) is not None:
                    return Accepted(seq=done.seq, events=[])
                raise NotAllowed("The game moved on while you acted; look again and retry.") from None
            self._keep_parsed(game_id, after_json, after)
            return Accepted(seq=seq, events=events)

    async def _due_of(self, row: GameRecordRow, after: GameState, quiet: dict[str, PlayerHours]) -> tuple[
            Callable[[Prompt], datetime | None], datetime | None]:
        """When each decision the game waits on after this action is due, its grace included (for the status
        board), and when the game is next due (GameRecordRow.due_at): from when each opened, which is now for those
        this action opens (version row.seq + 1). The times of older versions are kept per game; after a restart
        they are read once from the store (the times alone, not the actions)."""
        now = self.clock()
        ticking = after.phase != Phase.ENDED and not _clocks_stand_still(row.settings)
        timers = timers_due(row.settings) if after.phase != Phase.ENDED else None  # a vote, a voted pause
        known = self._opened.get(row.game_id, {})
        older = {p.opened_at for p in after.prompts if p.opened_at <= row.seq}
        if not older <= known.keys():
            known = await self.store.action_times(row.game_id, older - {0}) if older - {0} else {}
            known[0] = row.play_began_at
        opened_times = {seq: when for seq, when in known.items() if seq in older} | {row.seq + 1: now}
        self._opened[row.game_id] = opened_times
        clocks = _clocks(row.settings, blocking_prompts(after), opened_times, now, quiet)
        due = {prompt.id: expires for prompt, _, expires in clocks
               if not absence.clock_stopped(row.settings, prompt.faction)}  # an absent player's clock stands still
        if not ticking:
            return (lambda prompt: due.get(prompt.id)), timers
        stuck = _stuck_moment(row.settings, after, blocking_prompts(after), opened_times, now)
        return (lambda prompt: due.get(prompt.id)), earliest(_next_due(clocks, row.settings, after, quiet), stuck,
                                                             timers)

    def _deadline_of(self, row: GameRecordRow,
                     quiet: dict[str, PlayerHours] | None = None) -> Callable[[Prompt], datetime | None]:
        """When a decision opening now is due, by the game's deadlines (None: no deadline for its kind), moved to the
        end of the decider's quiet hours when it falls in them (`quiet`: the players' hours by faction)."""
        deadlines = GameSettings.of(row.settings).deadlines
        now = self.clock()

        def deadline(prompt: Prompt) -> datetime | None:
            seconds = deadlines.get(prompt.kind.value, deadlines.get(ANY_KIND))
            if seconds is None or absence.clock_stopped(row.settings, prompt.faction):  # it waits for its decider
                return None
            hours = (quiet or {}).get(prompt.faction.value)
            due = now + timedelta(seconds=seconds)
            return hours.after_quiet(due) if hours is not None else due

        return deadline

    def _parsed(self, row: GameRecordRow) -> GameState:
        """The row's snapshot as a GameState, parsed only if it is not the one submit last read or made. The
        JSON itself is the key, so any other write (an undo, an import) simply misses. Sharing the object is
        safe because only submit uses it and only reads it (engine.apply never changes the state it is
        given)."""
        cached = self._states.get(row.game_id)
        if cached is not None and cached[0] == row.state_json:  # the same string object, mostly: no compare
            return cached[1]
        state = _state(row)
        self._keep_parsed(row.game_id, row.state_json, state)
        return state

    def _keep_parsed(self, game_id: str, state_json: str, state: GameState) -> None:
        self._states.pop(game_id, None)
        self._states[game_id] = (state_json, state)
        while len(self._states) > STATE_CACHE_SIZE:
            del self._states[next(iter(self._states))]

    async def export(self, game_id: str) -> str:
        """The game file for a player: only once the game is over, since it holds every secret (the seed gives
        every deck and hand); while it runs, `export_for` gives each reader what they may know."""
        row = await self._load(game_id)
        if row.status != GameStatus.ENDED:
            raise NotAllowed("The whole game file holds every secret; it is given once the game is over. While "
                             "it runs, /game export gives you the public log and your own secrets.")
        return await self.record(game_id)

    async def record(self, game_id: str) -> str:
        """The game file (setup + actions + state hash) that `python -m engine replay` verifies, with the seats
        (which the engine ignores) so that /game import can seat the same players. Every secret is in it: for
        the host's own tools (the console, a backup), never for a Discord command while the game runs."""
        row = await self._load(game_id)
        actions = [parse_action(a.action_json) for a in await self.store.actions(game_id)]
        setup = GameSetup.model_validate_json(row.setup_json)
        record = record_game(setup, actions, _state(row)).model_dump(mode="json")
        return json.dumps(sign({**record, "seats": row.seats}, self.file_key), indent=1)

    async def export_for(self, game_id: str, reader: Faction | None) -> str:
        """A running game as `reader` may know it (None: the table, e.g. a moderator without a seat): the
        factions and options, the seats, every public event and `reader`'s own private ones by game version (as
        they were shown; versions that cannot be shown any more are one entry saying why), and `reader`'s view of
        the game now. No seed, no other faction's secret: a moderator who plays gets
        exactly what any player gets."""
        row = await self._load(game_id)
        setup = GameSetup.model_validate_json(row.setup_json)
        _, told, lost = await self._shown(row, setup)
        log = _readers_log(told, lost, reader)
        seen = view(_state(row), reader)
        return json.dumps({
            "format": "mentat-view/1",
            "reader": reader.value if reader else "the table",
            "factions": [f.value for f in setup.factions],
            "options": setup.options.model_dump(mode="json"),
            "seats": row.seats,
            "log": log,
            "now": seen.model_dump(mode="json"),
        }, indent=1)

    async def import_game(self, guild_id: int, channel_id: int, game_file: str, *, by: str = "moderator",
                          by_user: int = IMPORTED_ACTOR, trust_unsigned: bool = False) -> GameRecordRow:
        """Create this channel's game from a game file (/game export, or `python -m engine demo --export`):
        it must replay to its recorded state hash. Seats come from the file when it has them; the game waits
        for its empty seats and /game start, which resumes it where it stood (an ended game stays ended)."""
        game_id = await self._new_game_id(channel_id)
        if len(game_file) > MAX_GAME_FILE:
            raise NotAllowed(f"This game file is {len(game_file):,} characters long; a game file is at most "
                             f"{MAX_GAME_FILE:,}.")
        try:
            record = GameFile.model_validate_json(game_file)
        except ValidationError as error:
            raise NotAllowed(f"This is not a Mentat game file (mentat-game/1): {_first_problem(error)}") from None
        signed = signature_holds(game_file, self.file_key)
        if not signed and not trust_unsigned:
            raise NotAllowed("This game file is not signed by this bot, or was changed after it was exported (its "
                             "seats, its actions...): it was not imported. A moderator who trusts it may import it "
                             "with trust_unsigned; the table is then told.")
        try:
            state, told = await asyncio.to_thread(verify_history, record)  # a replay: off the event loop
        except ReplayMismatch as mismatch:
            raise NotAllowed(f"The game file fails verification, so it was not imported: {mismatch}") from None
        seats = _file_seats(record)
        ended = state.phase == Phase.ENDED
        now = self.clock()
        row = GameRecordRow(game_id=game_id, guild_id=guild_id, channel_id=channel_id,
                            status=GameStatus.ENDED if ended else GameStatus.OPEN,
                            setup_json=record.setup.model_dump_json(), state_json=state.model_dump_json(),
                            seq=state.seq, seats=seats, created_at=now, engine_version=__version__)
        # Each action as this Mentat applied it in the replay that verified the file (the version that made the
        # file may have told it otherwise; that one's words are not in the file).
        actions = [StoredAction(seq=number, actor=by_user, action_json=action.model_dump_json(), created_at=now,
                                engine_version=__version__, events_json=events_json(told[number]))
                   for number, action in enumerate(record.actions, start=1)]
        empty = [f.value for f in record.setup.factions if f.value not in seats]
        then = ("The game is over; /game export and /game log show it." if ended else
                f"Empty seats: {', '.join(empty)} (take one with /game join); then /game start resumes it."
                if empty else "Every seat is taken; /game start resumes it.")
        origin = "signed by this bot" if signed else "NOT signed by this bot (trusted by the moderator)"
        notice = _correction(by, f"imported a game: {len(record.actions)} actions, turn {state.turn}, "
                                 f"{state.phase.value.replace('_', ' ')}, verified by replay, {origin}", None)
        try:
            await self.store.create_game(row, [notice, _to_table(then)], actions, events_json(told[0]))
        except GameExists:
            raise NotAllowed(_channel_busy(await self.store.game_in_channel(channel_id))) from None
        return row

    async def public_log(self, game_id: str, last: int = LOG_LENGTH) -> list[str]:
        """The last `last` entries of the game's public log, oldest first: what each action showed the table
        (its public events, by game version) and the corrections made outside the engine (seats, pauses,
        undos, deadlines, imports), in the order they happened. Never a secret: private events are left out,
        so a spectator and every player read the same log."""
        if not 1 <= last <= MAX_LOG_LENGTH:
            raise NotAllowed(f"The log shows 1 to {MAX_LOG_LENGTH} entries, not {last}.")
        row = await self._load(game_id)
        setup = GameSetup.model_validate_json(row.setup_json)
        # a new game's deal is told at its start (a lobby cancelled before never told it)
        opening_told = row.seq > 0 or row.started_at is not None or row.status in (GameStatus.RUNNING,
                                                                                   GameStatus.PAUSED)
        stored, told, lost = await self._shown(row, setup)
        timed = _public_entries(told, lost, stored, row.started_at or row.created_at, opening_told)
        timed += [(note.created_at, f"v{note.seq} {note.text}") for note in await self.store.log_notes(game_id)]
        timed.sort(key=lambda entry: entry[0])  # stable: an action stays before a note of the same instant
        return [text for _, text in timed[-last:]]

    async def _shown(self, row: GameRecordRow, setup: GameSetup) -> tuple[
            list[StoredAction], list[list[Event] | None], tuple[int, str] | None]:
        """The game's actions; the events each of its versions showed, as kept (bot/app/history.py), the versions
        that kept none rebuilt by a replay checked against the next stored snapshot; and, when that replay fails
        (the rules changed since), the last version it could not rebuild and why (those versions are None)."""
        stored = await self.store.actions(row.game_id)
        opening = await self.store.opening_events(row.game_id)
        untold = last_untold(opening, stored)
        reference = await self.store.snapshot_from(row.game_id, untold) if untold is not None else None
        if reference is not None and reference[0] > len(stored):  # actions taken meanwhile lead to it: read them
            stored = await self.store.actions(row.game_id)
        # A replay is pure CPU work (a second or so for a long game), and so is reading a long game's kept events:
        # off the event loop, so the bot stays live.
        told, lost = await asyncio.to_thread(shown, setup, opening, stored, reference)
        return stored, told, (lost, _not_shown(row, lost)) if lost is not None else None

    async def state_of(self, game_id: str) -> GameState:
        return _state(await self._load(game_id))

    async def due_times(self, game_id: str) -> dict[str, datetime]:
        """When each decision the game waits on is due, its grace included (prompt id -> time; /game status); none
        in a game that is not running: a paused game's clocks stand still."""
        row = await self._load(game_id)
        if row.status != GameStatus.RUNNING:
            return {}
        return {prompt.id: expires for prompt, _, expires in await self._due_dates(row, _state(row))
                if not absence.clock_stopped(row.settings, prompt.faction)}

    # --- deadlines ---------------------------------------------------------------------------

    async def set_deadline(self, game_id: str, kind: str | None, seconds: int | None, *, by: str = "moderator",
                           reason: str | None = None) -> dict[str, int]:
        """Set (or, with seconds None, clear) the deadline of one prompt kind, of every kind without one of its
        own ("*"), or, with kind None, of every kind (the pace's other deadlines go). Announced to the table with
        its author and logged. Returns the game's deadlines."""
        key = ANY_KIND if kind is None else str(kind)
        if key != ANY_KIND and key not in {k.value for k in PromptKind}:
            raise NotAllowed(f"There is no decision kind {kind!r}; use one of: "
                             + ", ".join(k.value for k in PromptKind) + ", or * for every kind.")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0):
            raise NotAllowed(f"A deadline is a positive number of seconds, not {seconds!r}.")
        async with self._lock(game_id):
            row = await self._load(game_id)
            settings = dict(row.settings)
            deadlines = {} if kind is None else dict(settings.get("deadlines", {}))
            if seconds is None:
                deadlines.pop(key, None)
            else:
                deadlines[key] = seconds
            settings["deadlines"] = deadlines
            what = "every decision" if kind is None else kind_words(key)
            did = (f"set the deadline of {what} to {duration(seconds)}" if seconds is not None
                   else f"removed the deadline of {what}")
            outbox, due_at = [_correction(by, did, reason)], None
            if row.status in (GameStatus.RUNNING, GameStatus.PAUSED):
                state = _state(row)
                outbox += await self._due_shown(row, state, settings)
                due_at = await self._due_index(row, state, settings, row.status)
            await self.store.set_settings(game_id, settings, outbox, due_at=due_at)
            return deadlines

    async def grace(self, game_id: str, faction: Faction, seconds: int, *, by: str = "moderator",
                    reason: str, rider: Rider = NO_RIDER) -> list[datetime]:
        """Give one player more time: every open decision of `faction` that has a deadline is due `seconds` later
        (counted from now for one already overdue), kept by decision in the game's settings
        (`grace`), which the tick reads. The table is told who gave it and why (logged), the player by DM when
        each decision is now due. Returns the new due times."""
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
            raise NotAllowed(f"A grace is a positive number of seconds, not {seconds!r}.")
        async with self._lock(game_id):
            row = await self._load(game_id)
            if row.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
                raise NotAllowed(f"The game is {row.status.value}: no decision is waiting.")
            state = _state(row)
            due = [(prompt, expires) for prompt, _, expires in await self._due_dates(row, state)
                   if prompt.faction == faction]
            if not due:
                raise NotAllowed(f"{faction_does(faction, 'have', start=True)} no open decision with a deadline.")
            now, quiet = self.clock(), (await self.hours.seats(row.seats)).get(faction.value)
            grace, stages = _open_grace(row.settings, state), _open_stages(row.settings, state)
            lines, new_due = [], []
            for prompt, expires in due:
                later = max(expires, now) + timedelta(seconds=seconds)
                decision = _decision(prompt)
                grace[decision] = grace.get(decision, 0) + round((later - expires).total_seconds())
                later = quiet.after_quiet(later) if quiet is not None else later  # as _clock_of moves it
                if stages.get(decision) == LAST:  # a new last call before the new deadline
                    stages[decision] = HALF
                lines.append(f"- {decision_name(prompt.kind)}: now due {timestamp(later)} ({timestamp(later, 'R')}).")
                new_due.append(later)
            decisions = "their open decision" if len(due) == 1 else f"their {len(due)} open decisions"
            told = _correction(by, f"gave {faction_name(faction)} {duration(seconds)} more for {decisions}", reason,
                               f"; due {timestamp(max(new_due))}")
            if GameSettings.of(row.settings).paused_at is not None:
                lines.append(PAUSED_GRACE)
            dm = OutgoingMessage(recipient=Recipient(faction=faction.value),
                                 text=f"{_author(by)} gave you {duration(seconds)} more ({reason}):\n"
                                      + "\n".join(lines))
            settings = rider.settings({**row.settings, "grace": grace, "reminded": stages})
            await self.store.set_settings(game_id, settings, [told, dm, *rider.told,
                                                              *await self._due_shown(row, state, settings)],
                                          due_at=await self._due_index(row, state, settings, row.status))
            return new_due

    async def tick(self, now: datetime | None = None) -> int:
        """Remind players of decisions at half their deadline and just before it, and apply a decision's default
        once its deadline (with any grace) passed (logged as a correction by actor 0, announced like one).
        Returns how many defaults were applied. Call it periodically; a prompt closed meanwhile is skipped.

        Reads only the games of this process's shards whose due time has come (the store's index of due times,
        GameRecordRow.due_at, which every change of a game's state or settings sets). A default the rules refuse
        is logged, told to the table and its moderator once, and not tried again (`_default_refused`)."""
        now = now if now is not None else self.clock()
        applied = 0
        for game_id in await self.store.games_due(now, self.shards):
            absent = await self._absences_and_trouble(game_id, now)
            expired = [(prompt_id, DEADLINE_ADMIN, f"the deadline of the {kind} passed")
                       for prompt_id, kind in await self._remind(game_id, now)]
            expired += [(prompt_id, ABSENCE_ADMIN, why) for prompt_id, why in absent
                        if prompt_id not in {taken for taken, _, _ in expired}]
            for prompt_id, admin, reason in expired:
                try:
                    await self.submit(game_id, 0, ForceDefault(admin=admin, reason=reason, prompt_id=prompt_id),
                                      admin=True, prompt_id=prompt_id)
                except Refused as refusal:
                    await self._default_refused(game_id, prompt_id, refusal)
                    continue
                except ServiceError:  # answered, closed by an earlier default, or the game stopped meanwhile
                    continue
                applied += 1
            if game_id in self._timers_due:  # a vote's deadline, the end of a pause the table voted
                self._timers_due.discard(game_id)
                await self._vote_timers(game_id, now)
        return applied

    async def _default_refused(self, game_id: str, prompt_id: str, refusal: Refused) -> None:
        """A decision whose default the rules refused at its deadline: logged with the rules' reason, and told to
        the table and the game's moderator (its creator) once, without the reason, which may name a secret; kept
        in the settings (DEFAULT_REFUSED) so that no tick tries it again. It waits for its player or a moderator."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            state = _state(row)
            prompt = state.prompt(prompt_id)
            if prompt is None:
                return
            refused = _open_entries(GameSettings.of(row.settings).default_refused, state)
            decision = _decision(prompt)
            log.warning("game %s: the default of decision %s (prompt %s) was refused at its deadline: %s",
                        game_id, decision, prompt_id, refusal)
            if decision in refused:
                return
            refused[decision] = str(refusal)
            creator = GameSettings.of(row.settings).creator
            moderator = f"<@{creator}>, " if creator is not None else ""
            what = "a secret decision" if prompt.secret else decision_name(prompt.kind)
            told = _to_table(
                f"{moderator}moderators: the deadline of {faction_possessive(prompt.faction)} decision ({what}) "
                "passed, but the rules refuse its default in this position (the bot's log has why). It stays open "
                f"until {faction_does(prompt.faction, 'answer')} it; a moderator may correct the game (/admin).")
            settings = {**row.settings, DEFAULT_REFUSED: refused}
            await self.store.set_settings(game_id, settings, [told],
                                          due_at=await self._due_index(row, state, settings, row.status))

    async def _due_dates(self, row: GameRecordRow, state: GameState,
                         settings: dict | None = None) -> list[tuple[Prompt, datetime, datetime]]:
        """The open decisions the game waits on that have a deadline: (prompt, the start of its clock, when it is
        due), by the game's settings or the given ones. In a paused game, as if it resumed now. Reads the times
        of the versions they opened at, not the actions."""
        settings = row.settings if settings is None else settings
        if not GameSettings.of(settings).deadlines:
            return []
        waiting = blocking_prompts(state)
        seqs = {p.opened_at for p in waiting} - {0}
        opened_times = await self.store.action_times(row.game_id, seqs) if seqs else {}
        opened_times[0] = row.play_began_at
        return _clocks(settings, waiting, opened_times, self.clock(), await self.hours.seats(row.seats))

    async def _due_index(self, row: GameRecordRow, state: GameState, settings: dict,
                         status: GameStatus) -> datetime | None:
        """When the game is next due (GameRecordRow.due_at) in `state` under these settings and status: its decisions'
        reminders and deadlines while it runs, not paused; and, running or paused, an open table vote's deadline and
        the end of a pause the table voted (bot/app/votes.py timers_due)."""
        if status not in (GameStatus.RUNNING, GameStatus.PAUSED):
            return None
        if status != GameStatus.RUNNING or _clocks_stand_still(settings):
            return timers_due(settings)
        stuck = await self._stuck_due(row, state, settings, self.clock())
        return earliest(_next_due(await self._due_dates(row, state, settings), settings, state,
                                  await self.hours.seats(row.seats)), stuck, timers_due(settings))

    async def _due_shown(self, row: GameRecordRow, state: GameState, settings: dict) -> list[OutgoingMessage]:
        """The status board and the card of each decision the game waits on, under these settings, in place of
        those shown: their due times changed, or the game was paused (then they show none)."""
        due = await self._shown_due(row, state, settings)
        cards = [card_in_place(decision_card(state, prompt, due.get(prompt.id)), prompt.id)
                 for prompt in blocking_prompts(state)]
        return [_board(state, settings, due), *cards]

    async def _board_shown(self, row: GameRecordRow, state: GameState, settings: dict) -> list[OutgoingMessage]:
        """The status board alone under these settings, in place of the one shown, while the game goes on (running
        or paused): the table's vote opened, was answered or closed, and the decisions' due times did not move."""
        if row.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
            return []
        return [_board(state, settings, await self._shown_due(row, state, settings))]

    async def _shown_due(self, row: GameRecordRow, state: GameState, settings: dict) -> dict[str, datetime]:
        """When each decision the game waits on is due, as the board and the cards show it (prompt id -> time): none
        in a paused game, nor for an absent player's decision (its clock stands still)."""
        if GameSettings.of(settings).paused_at is not None:
            return {}
        return {prompt.id: expires for prompt, _, expires in await self._due_dates(row, state, settings)
                if not absence.clock_stopped(settings, prompt.faction)}

    async def _remind(self, game_id: str, now: datetime) -> list[tuple[str, str]]:
        """Queue the reminders due in one game and return its expired prompts (id, kind). A reminder calls the
        awaited players by name in the turn's thread (a secret decision is "a secret decision" there) and
        reminds each by DM; the stage each decision was reminded at is kept with them (settings["reminded"])."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            if (timers := timers_due(row.settings)) is not None and timers <= now:
                self._timers_due.add(game_id)  # the tick then closes the vote or ends the pause (`_vote_timers`)
            if row.status != GameStatus.RUNNING:  # stopped by a write that did not say it has nothing due
                timers = timers_due(row.settings) if row.status == GameStatus.PAUSED else None  # a vote, a pause
                if row.due_at != timers:
                    await self.store.set_settings(game_id, row.settings, due_at=timers)
                return []
            state = _state(row)
            stages, grace = _open_stages(row.settings, state), _open_grace(row.settings, state)
            clock = GameSettings.of(row.settings)
            paused_for, refused = _open_entries(clock.paused_for, state), _open_entries(clock.default_refused, state)
            expired, outbox = [], []
            called: dict[tuple[str, str, datetime], list[str]] = {}  # (stage, decision, due) -> awaited players
            dates, quiet = await self._due_dates(row, state), await self.hours.seats(row.seats)
            for prompt, opened, expires in dates:
                kind = decision_topic(prompt.kind)
                if now >= expires:
                    if _decision(prompt) not in refused:
                        expired.append((prompt.id, kind))
                    continue
                stage = _stage_due(opened, expires, now, quiet.get(prompt.faction.value))
                if stage is None or STAGE_ORDER[stage] <= STAGE_ORDER[stages.get(_decision(prompt))]:
                    continue
                stages[_decision(prompt)] = stage
                what = "a secret decision" if prompt.secret else decision_name(prompt.kind)
                called.setdefault((stage, what, expires), []).append(mention(prompt.faction.value))
                lead = "Last call" if stage == LAST else "Reminder"
                outbox.append(OutgoingMessage(
                    recipient=Recipient(faction=prompt.faction.value),
                    text=f"{lead}, your decision: {decision_name(prompt.kind)}. Due {timestamp(expires)} "
                         f"({timestamp(expires, 'R')}); then the default your card names is applied for you."))
            thread = Recipient(channel=True, thread=f"turn:{state.turn}")
            for (stage, what, expires), names in called.items():
                lead = "Last call" if stage == LAST else "Reminder"
                outbox.append(OutgoingMessage(recipient=thread, text=f"{lead}: {', '.join(names)}, the table waits "
                                              f"on you: {what}, due {timestamp(expires, 'R')}."))
            kept = {"reminded": stages, "grace": grace, PAUSED_FOR: paused_for}
            if refused or DEFAULT_REFUSED in row.settings:
                kept[DEFAULT_REFUSED] = refused
            changed = any(row.settings.get(key, {}) != value for key, value in kept.items())
            settings = {**row.settings, **kept} if changed else row.settings
            # the DM owed to each player whose quiet hours are over (bot/app/hours.py)
            settings, follow_ups = quiet_hours_over(settings, state, {p.id: due for p, _, due in dates}, now)
            outbox += follow_ups
            changed = changed or bool(follow_ups)
            stuck = await self._stuck_due(row, state, settings, now)
            running = None if _clocks_stand_still(settings) else earliest(_next_due(dates, settings, state, quiet),
                                                                          stuck)
            due_at = earliest(running, timers_due(settings))
            if changed or due_at != row.due_at:
                # the reminders, their record and when the game is next due: one transaction
                await self.store.set_settings(game_id, settings, outbox, due_at=due_at)
            return expired

    # --- undo --------------------------------------------------------------------------------

    async def undo(self, game_id: str, count: int, *, force: bool = False, by: str = "moderator",
                   reason: str | None = None) -> int:
        """Take back the last `count` actions: the game returns to the snapshot stored with the first of them
        (one stored before snapshots were kept is rebuilt by a replay, refused when the rules changed since).
        Refused past a secret reveal unless forced. A game that one of them ended runs again."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            if (cancelled := cancellation_text(row.settings)) is not None:
                raise NotAllowed(f"This game was cancelled ({cancelled}): it cannot be changed any more.")
            stored = await self.store.actions(game_id)
            if not 1 <= count <= len(stored):
                raise NotAllowed(f"There are {len(stored)} actions to undo, not {count}.")
            keep = len(stored) - count
            undone = [None if a.events_json is None else kept_events(a.events_json) for a in stored[keep:]]
            untold = max((a.seq for a in stored[keep:] if a.events_json is None), default=keep)
            version, snapshot = await self.store.snapshot_from(game_id, untold)
            if version == keep:
                restored = snapshot
            else:  # stored before snapshots (and events) were kept: rebuilt, if these rules still play it
                try:
                    replayed, state = await asyncio.to_thread(
                        replay_until, GameSetup.model_validate_json(row.setup_json), stored, version, snapshot, keep)
                except RulesChanged:
                    raise NotAllowed(
                        f"This game's history up to version {version} was recorded by {_played_under(row)}, and this "
                        f"Mentat ({__version__}) plays some rules differently: replayed, it no longer gives the game "
                        f"as it was, so the game cannot be undone past version {version}.") from None
                assert state is not None  # keep <= version: the replay passed it
                restored = state.model_dump_json()
                undone = [replayed[keep + n] if events is None else events for n, events in enumerate(undone, 1)]
            revealing = any(e.type in REVEALING_EVENTS or not e.public for events in undone for e in events or ())
            if revealing and not force:
                # Which events is not said: a moderator who plays must not learn of another player's secret ones.
                raise NotAllowed(f"Undoing {'this action' if count == 1 else f'these {count} actions'} would take "
                                 "back something a player has already seen (a card, a reveal, a secret choice); a "
                                 "moderator may force it.")
            restored_state = GameState.model_validate_json(restored)
            resumed = row.status == GameStatus.ENDED and restored_state.phase != Phase.ENDED
            newer = await self.store.game_in_channel(row.channel_id) if resumed else None
            if newer is not None and newer.game_id != game_id and newer.status != GameStatus.ENDED:
                raise NotAllowed(f"This game's channel has a newer game going on ({newer.game_id}): this one cannot "
                                 "run again there.")
            notice = _correction(by, f"undid the last {count} action(s)", reason,
                                 f"; the game is back at version {keep}" + (" and running again" if resumed else ""))
            status = GameStatus.RUNNING if resumed else row.status
            self._opened.pop(game_id, None)  # versions after `keep` will be reached again, at other times
            due_at = await self._due_index(row, restored_state, row.settings, status)
            await self.store.replace_history(game_id, keep, restored, [notice],
                                             status=GameStatus.RUNNING if resumed else None, due_at=due_at)
            return keep

    # --- delivery ----------------------------------------------------------------------------

    async def deliver(self, gateway: Gateway, patience: float | None = None) -> int:
        """Drain the outbox (bot/app/delivery.py: by lane, a game's channel or a player's DMs, concurrently, each
        in order; later edits of a message merged into one). Returns how many messages went out. With `patience`,
        it returns after that many seconds at most: a lane still delivering then goes on by itself (the next drain
        leaves it alone), so that a channel Discord makes wait does not hold up the next drain.

        Exactly once: a row is marked as being sent (`sending_since`) before the gateway is asked, and sent,
        with where the message went, after. A crash between the two leaves a row pending with `sending_since`
        set; the next drain first asks the gateway whether the platform shows that message (the recent history
        of the channel or the DM since then) and only sends it when it does not. Each send also carries the
        outbox id as its idempotency key (Discord: the message nonce).

        A DM the player does not accept is marked undeliverable and the table is told once, until a DM gets
        through again; the player reads the decision with /me prompts (the open prompts are in the game's
        state, so nothing is lost). A game's channel that refuses the bot stops the game's clocks and tells its
        moderators, once, until a message gets through again (`_channel_state`); its messages wait, in order.
        Any other failure is logged and retried by a later drain, up to MAX_DELIVERY_ATTEMPTS.

        Only the games of this process's shards, and of those only the shards no other process is delivering
        now (the store's delivery turn, held while any lane runs): two drains never hand the same row over at
        once."""
        return await self._courier.drain(gateway, patience)

    async def deliveries_settled(self) -> None:
        """Wait until every delivery a drain left running (past its patience) has ended."""
        await self._courier.settled()

    async def _channel_state(self, gateway: Gateway, game_id: str, problem: str | None) -> None:
        """The game's channel refuses the bot (`problem` says why) or takes its messages again (None). On each
        change, and only then: the game's clocks stop (STALLED_AT, counted as a pause is) or go on from where
        they stopped (the board and the cards then show the due times moved on), and its moderators are told."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            if (problem is not None) == (GameSettings.of(row.settings).stalled_at is not None):
                return
            now, shown = self.clock(), []
            if problem is not None:
                settings = {**row.settings, STALLED_AT: now.isoformat()}
            else:
                settings = _clock_restarted(row.settings, _state(row), now, STALLED_AT)
                if row.status == GameStatus.RUNNING:  # the board and the cards show the due times moved on
                    shown = await self._due_shown(row, _state(row), settings)
            await self.store.set_settings(game_id, settings, shown,
                                          due_at=await self._due_index(row, _state(row), settings, row.status))
        where = f"the channel of the game {game_id} (<#{row.channel_id}>)"
        if problem is not None:
            text = (f"Mentat cannot write in {where}. {problem}\nUntil it can, the game's messages wait, in order, "
                    "and its deadlines are stopped.")
        else:
            text = (f"Mentat writes in {where} again: the messages that waited are delivered in order, and the "
                    "game's deadlines go on from where they stopped.")
        await gateway.tell_moderators(row, await self.store.moderator_role(row.guild_id), text)

    async def _set_reachable(self, game_id: str, faction: str, reachable: bool) -> None:
        """Keep the game's list of players the bot cannot DM; tell the table when one joins it."""
        async with self._lock(game_id):
            game = await self._load(game_id)
            unreachable = list(game.settings.get("unreachable", []))
            if (faction in unreachable) != reachable:
                return
            if reachable:
                unreachable.remove(faction)
            else:
                unreachable.append(faction)
                user = game.seats.get(faction)
                who = _player(user, faction) if user is not None else f"the {faction} player (no one is seated)"
                await self.store.queue(game_id, [_to_table(
                    f"The bot cannot DM {who}: open your DMs from this server's members; until then read your "
                    "messages and decisions with /me prompts.")])
            settings = {key: value for key, value in game.settings.items() if key != "unreachable"}
            if unreachable:
                settings["unreachable"] = unreachable
            await self.store.set_settings(game_id, settings)

    # --- what the fronts read and keep (the Discord front goes through the service, never to the store) ---------

    async def game(self, game_id: str) -> GameRecordRow | None:
        """The game with this id (None: there is none)."""
        return await self.store.load_game(game_id)

    async def game_in_channel(self, channel_id: int) -> GameRecordRow | None:
        """The game a command in this channel is about (see GameStore.game_in_channel)."""
        return await self.store.game_in_channel(channel_id)

    async def games_in_channel(self, channel_id: int) -> list[GameRecordRow]:
        return await self.store.games_in_channel(channel_id)

    async def moderator_role(self, guild_id: int) -> int | None:
        """The role whose members moderate this server's games (None: Manage Server only)."""
        return await self.store.moderator_role(guild_id)

    async def set_moderator_role(self, guild_id: int, role_id: int | None) -> None:
        await self.store.set_moderator_role(guild_id, role_id)

    async def get_value(self, key: str) -> str | None:
        """A value the bot keeps about itself rather than about a game (GameStore.get_value)."""
        return await self.store.get_value(key)

    async def set_value(self, key: str, value: str) -> None:
        await self.store.set_value(key, value)

    # --- each player's hours (issue 26 item 1) -------------------------------------------------

    async def player_hours(self, user_id: int, *, zone: str | None = None, quiet_from: int | None = None,
                           quiet_until: int | None = None, no_quiet_hours: bool = False) -> str:
        """/me settings: the player's time zone and quiet hours, kept for them in every game (bot/app/hours.py);
        given none of the options, the current ones. Refused, changing nothing: an unknown zone, quiet hours
        lasting no time or more than MAX_QUIET_HOURS. The deadlines and reminders of the games they sit in follow
        the new hours at once: the boards and cards show the moved due times."""
        kept = await self.hours.of(user_id)
        if zone is None and quiet_from is None and quiet_until is None and not no_quiet_hours:
            return hours_text(kept, self.clock())
        try:
            hours = changed_hours(kept, zone, quiet_from, quiet_until, no_quiet_hours)
        except HoursRefused as refusal:
            raise NotAllowed(str(refusal)) from None
        await self.hours.keep(user_id, hours)
        for row in await self.store.list_games():
            if row.status == GameStatus.RUNNING and user_id in row.seats.values():
                await self._due_moved(row.game_id)
        return "Saved.\n" + hours_text(hours, self.clock())

    async def _due_moved(self, game_id: str) -> None:
        """A player's hours changed: the game's due times follow (the board and the cards show them, the tick
        comes when the next one is due)."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            if row.status != GameStatus.RUNNING:
                return
            state = _state(row)
            await self.store.set_settings(game_id, row.settings, await self._due_shown(row, state, row.settings),
                                          due_at=await self._due_index(row, state, row.settings, row.status))

    async def _silenced(self, game_id: str, hushed: dict[str, datetime]) -> None:
        """Messages of the game went out silently to these players (by faction), in their quiet hours that end at
        the given times: a DM is owed to each then (QUIET_OWED, counted), which makes the game due."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            owed = dict(row.settings.get(QUIET_OWED, {}))
            for faction, until in hushed.items():
                before = owed.get(faction)
                end = max(until, datetime.fromisoformat(before["until"])) if before else until
                owed[faction] = {"until": end.isoformat(), "silenced": (before or {}).get("silenced", 0) + 1}
            settings = {**row.settings, QUIET_OWED: owed}
            await self.store.set_settings(game_id, settings,
                                          due_at=await self._due_index(row, _state(row), settings, row.status))

    # --- substitutes (bot/app/seats.py) ---

    async def hand_over(self, game_id: str, faction: Faction, user_id: int, *, by: str, caller: int | None = None,
                        admin: bool = False, reason: str | None = None, call: int | None = None) -> None:
        """Give a started game's seat to `user_id`, who gets the catch-up by DM (bot/app/seats.py); the table is
        told and the log keeps it. By its player (`caller` must hold it; /game sub), by a moderator (`admin`:
        /admin seat, announced as a correction), or by taking the open call number `call` (its button)."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            _seat_in_play(row, faction, "a seat changes hands only in a started game that is not over (before the "
                                        "start, /game join)")
            old = row.seats.get(faction.value)
            if caller is not None and not admin and old != caller:
                raise NotAllowed(now_played_by(row, caller, faction.value)
                                 or f"You do not play {the_faction(faction)}: only a seat's player hands it over.")
            if old == user_id:
                raise NotAllowed(f"<@{user_id}> already plays {the_faction(faction)}.")
            seated = [Faction(f) for f, user in row.seats.items() if user == user_id]
            if seated and not admin:
                who = "You already play" if caller is None else f"<@{user_id}> already plays"
                raise NotAllowed(f"{who} {the_faction(seated[0])} in this game: a substitute is someone not seated.")
            calls = dict(row.settings.get(SEAT_CALLS, {}))
            if call is not None and calls.get(faction.value) != call:
                raise NotAllowed(f"This call is over: the {faction_name(faction)} seat was already taken.")
            if caller is not None and not admin:
                told = _to_table(f"<@{caller}> handed the {faction_name(faction)} seat to <@{user_id}>"
                                 + (f" ({reason})" if reason else "") + f": <@{user_id}> plays "
                                 f"{the_faction(faction)} from now on.", logged=True)
            elif admin:
                told = _correction(by, f"seated <@{user_id}> as {faction_name(faction)}", reason,
                                   f" (in place of <@{old}>)" if old is not None else "")
            else:
                told = _to_table(f"<@{user_id}> took the open {faction_name(faction)} seat"
                                 + (f" (played until now by <@{old}>)" if old is not None else "")
                                 + f": <@{user_id}> plays {the_faction(faction)} from now on.", logged=True)
            state = _state(row)
            paused = row.status == GameStatus.PAUSED
            due = {} if paused else {p.id: expires for p, _, expires in await self._due_dates(row, state)}
            story = await self.public_log(game_id, STORY_LENGTH)
            outbox = [told]
            if (number := calls.pop(faction.value, None)) is not None:
                outbox.append(call_taken(faction, number, user_id))  # any open call for the seat is over
            outbox += old_cards_closed(state, faction, user_id) + catch_up(state, faction,
                                                                          lambda p: due.get(p.id), story)
            if (vote := row.settings.get(VOTE)) is not None and faction.value not in vote["answers"]:
                outbox += [ballot_closed(vote, faction.value, f"This seat is now played by <@{user_id}>."),
                           ballot(vote, faction)]  # the seat's ballot moves to the newcomer's DMs
            settings = with_former_player({**row.settings, SEAT_CALLS: calls}, faction.value, old, user_id)
            unreachable = [f for f in settings.get("unreachable", []) if f != faction.value]
            settings = {key: value for key, value in settings.items() if key != "unreachable"} | (
                {"unreachable": unreachable} if unreachable else {})  # the newcomer's DMs are tried afresh
            await self._set_seat(game_id, faction, user_id, outbox, was=old, settings=settings)

    async def _set_seat(self, game_id: str, faction: Faction, user_id: int | None, outbox: list[OutgoingMessage], *,
                        was: int | None, settings: dict | None = None) -> None:
        """The seat, the settings and what is told, in one write, if the seat is still where this process read it:
        another process (a second "Take this seat" press handled elsewhere) may have changed it meanwhile, and
        only one newcomer may get the seat's secrets."""
        try:
            await self.store.set_seat(game_id, faction.value, user_id, outbox, was=was, settings=settings)
        except SeatChanged:
            raise NotAllowed(f"The {faction_name(faction)} seat changed hands a moment ago: look again "
                             "(/game status).") from None

    async def call_substitute(self, game_id: str, faction: Faction, *, why: str, caller: int | None = None,
                              admin: bool = False, rider: Rider = NO_RIDER) -> int:
        """Post the call for a substitute for `faction`'s seat, with its "Take this seat" button (by the seat's
        player, `caller`; by a moderator, `admin`; or by a table vote). Returns the call's number."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            _seat_in_play(row, faction, "a substitute is called only in a started game that is not over")
            if caller is not None and not admin and row.seats.get(faction.value) != caller:
                raise NotAllowed(now_played_by(row, caller, faction.value)
                                 or f"You do not play {the_faction(faction)}: a moderator may call a substitute for "
                                    "any seat, a player for their own.")
            calls = dict(row.settings.get(SEAT_CALLS, {}))
            if faction.value in calls:
                raise NotAllowed(f"A call for a substitute for the {faction_name(faction)} seat is already open in "
                                 "the channel.")
            number = row.settings.get(SEAT_CALLS_MADE, 0) + 1
            calls[faction.value] = number
            settings = rider.settings({**row.settings, SEAT_CALLS: calls, SEAT_CALLS_MADE: number})
            await self.store.set_settings(game_id, settings, [call_post(faction, number, why), *rider.told],
                                          due_at=row.due_at)
            return number

    # --- table votes (bot/app/votes.py) ---

    async def open_vote(self, game_id: str, user_id: int, kind: VoteKind, *, hours: float | None = None,
                        faction: Faction | None = None) -> dict:
        """Open a table vote called by a seated player: announced in the channel (logged), and a ballot with Yes
        and No in each seat's DMs. One vote at a time; it closes when every seat has answered or at its deadline
        (VOTE_HOURS). Returns the vote."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            if row.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
                raise NotAllowed(f"The game is {row.status.value}: the table votes only in a started game that is "
                                 "not over.")
            seats = [f.value for f in GameSetup.model_validate_json(row.setup_json).factions]
            caller = next((Faction(seat) for seat in seats if row.seats.get(seat) == user_id), None)
            if caller is None:
                raise NotAllowed(now_played_by(row, user_id)
                                 or "Only a player seated in this game may call a table vote.")
            if (open_vote := row.settings.get(VOTE)) is not None:
                closes = closes_at(open_vote)
                raise NotAllowed(f"A table vote is already open ({vote_words(open_vote)}); it closes by "
                                 f"{timestamp(closes)}. One vote at a time.")
            state = _state(row)
            await self._check_vote(row, state, kind, hours, faction)
            number = row.settings.get(VOTES_MADE, 0) + 1
            vote = new_vote(number, kind, caller, self.clock(), hours=hours, faction=faction)
            settings = {**row.settings, VOTE: vote, VOTES_MADE: number}
            outbox = [opening_post(vote, user_id, len(seats)), *(ballot(vote, Faction(seat)) for seat in seats),
                      *await self._board_shown(row, state, settings)]
            await self.store.set_settings(game_id, settings, outbox,
                                          due_at=await self._due_index(row, state, settings, row.status))
            return vote

    async def _check_vote(self, row: GameRecordRow, state: GameState, kind: VoteKind, hours: float | None,
                          faction: Faction | None) -> None:
        """Refuse a vote that could not be carried out if it passed, or that lacks what it needs."""
        in_game = {f.value for f in GameSetup.model_validate_json(row.setup_json).factions}
        if kind in (VoteKind.EXTEND, VoteKind.REPLACE) and (faction is None or faction.value not in in_game):
            raise NotAllowed("Name the seat (faction) this vote is about: one of this game's factions.")
        if kind == VoteKind.PAUSE:
            if row.status != GameStatus.RUNNING:
                raise NotAllowed("The game is already paused: a vote may resume it.")
            if hours is None or not 0 < hours <= MAX_PAUSE_HOURS:
                raise NotAllowed(f"Say how long the pause lasts: 1 to {MAX_PAUSE_HOURS} hours (7 days at most); then "
                                 "the game resumes by itself.")
        elif kind == VoteKind.RESUME and row.status != GameStatus.PAUSED:
            raise NotAllowed("The game is not paused: there is nothing to resume.")
        elif kind == VoteKind.EXTEND and faction is not None:  # not None: checked above
            if hours is None or not 0 < hours <= MAX_EXTEND_HOURS:
                raise NotAllowed(f"Say how many hours more: 1 to {MAX_EXTEND_HOURS}.")
            if not any(prompt.faction == faction for prompt, _, _ in await self._due_dates(row, state)):
                raise NotAllowed(f"{faction_does(faction, 'have', start=True)} no open decision with a deadline.")
        elif kind == VoteKind.REPLACE and faction is not None and faction.value not in row.seats:
            raise NotAllowed(f"Nobody plays {the_faction(faction)}: a moderator seats someone with /admin seat.")

    async def cast_vote(self, game_id: str, number: int, faction: Faction, user_id: int, yes: bool) -> None:
        """A seat's answer to the open vote, by its player, once. The ballot says what was answered (its buttons
        disabled); nobody else learns it until the vote closes. The last seat's answer closes the vote."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            vote = row.settings.get(VOTE)
            if vote is None or vote["number"] != number:
                raise NotAllowed("This vote is closed: the channel has its result.")
            if row.seats.get(faction.value) != user_id:
                raise NotAllowed(now_played_by(row, user_id, faction.value)
                                 or f"You do not play {the_faction(faction)}: only a seat's player answers for it.")
            if faction.value in vote["answers"]:
                raise NotAllowed("You already voted: a seat answers once.")
            vote = {**vote, "answers": {**vote["answers"], faction.value: yes}}
            seats = [f.value for f in GameSetup.model_validate_json(row.setup_json).factions]
            outbox = [ballot_answered(vote, faction, yes)]
            if all(seat in vote["answers"] for seat in seats):
                settings, closing, passed = self._vote_closed(row, vote, seats, "every seat answered")
                outbox += closing
            else:
                settings, passed = {**row.settings, VOTE: vote}, False
            state = _state(row)
            outbox += await self._board_shown(row, state, settings)  # one seat fewer to answer, or no vote open
            await self.store.set_settings(game_id, settings, outbox,
                                          due_at=await self._due_index(row, state, settings, row.status))
        if passed:
            await self._carry_out(game_id, vote)

    def _vote_closed(self, row: GameRecordRow, vote: dict, seats: list[str], why: str) -> tuple[
            dict, list[OutgoingMessage], bool]:
        """The settings without the vote, what the table and the seats that did not answer are told, and whether
        it passed."""
        passed = tally(vote, seats)[0]
        settings = {key: value for key, value in row.settings.items() if key != VOTE}
        if passed:
            settings[VOTE_PASSED] = vote
        unanswered = [ballot_closed(vote, seat) for seat in seats if seat not in vote["answers"]]
        return settings, [result_post(vote, seats, why), *unanswered], passed

    async def _carry_out(self, game_id: str, vote: dict) -> None:
        """What a vote that passed decided, done as a moderator would, announced as the table's (TABLE). Something
        that cannot be done any more (the game changed meanwhile) is told to the table instead. Kept in the
        settings until done (VOTE_PASSED): a crash before then leaves it to the next tick."""
        if (game_id, vote["number"]) in self._carrying:  # a tick found it while its closing carries it out
            return
        self._carrying.add((game_id, vote["number"]))
        try:
            await self._carry_out_now(game_id, vote)
        finally:
            self._carrying.discard((game_id, vote["number"]))

    async def _carry_out_now(self, game_id: str, vote: dict) -> None:
        kind = VoteKind(vote["kind"])

        def done(settings: dict[str, Any]) -> dict[str, Any]:  # not to be carried out again by a later tick
            return {key: value for key, value in settings.items() if key != VOTE_PASSED}

        try:
            if kind == VoteKind.PAUSE:
                until = self.clock() + timedelta(hours=vote["hours"])
                told = _to_table(f"The game resumes by itself at {timestamp(until)} ({timestamp(until, 'R')}), "
                                 "unless the table votes to resume it sooner.")
                await self.pause(game_id, True, by=TABLE, reason=f"for {hours_words(vote['hours'])}", rider=Rider(
                    lambda settings: {**done(settings), TABLE_PAUSE: {"since": settings.get(PAUSED_AT),
                                                                      "until": until.isoformat()}}, (told,)))
            elif kind == VoteKind.RESUME:
                await self._resume_by_table(game_id, None, rider=Rider(done))
            elif kind == VoteKind.EXTEND:
                await self.grace(game_id, vote_seat(vote), round(vote["hours"] * 3600), by=TABLE,
                                 reason="the vote passed", rider=Rider(done))
            elif kind == VoteKind.REPLACE:
                await self.call_substitute(game_id, vote_seat(vote), why="the table voted to replace its player",
                                           rider=Rider(done))
            else:
                await self.cancel(game_id, by=TABLE, reason="the table voted to end the game, without a winner",
                                  rider=Rider(done))
        except ServiceError as error:
            async with self._lock(game_id):
                row = await self._load(game_id)
                if (row.settings.get(VOTE_PASSED) or {}).get("number") == vote["number"]:
                    settings = done(row.settings)
                    told = _to_table(f"The table's vote passed, but cannot be carried out now: {error}", logged=True)
                    await self.store.set_settings(game_id, settings, [told], due_at=await self._due_index(
                        row, _state(row), settings, row.status))

    async def _vote_timers(self, game_id: str, now: datetime) -> None:
        """The tick's part: the open vote closes at its deadline (no answer counts as not yes), and a pause the
        table voted ends at its end (its cap)."""
        vote, passed, resume = None, False, False
        async with self._lock(game_id):
            row = await self._load(game_id)
            settings = row.settings
            outbox: list[OutgoingMessage] = []
            if (vote := settings.get(VOTE)) is not None and closes_at(vote) <= now:
                seats = [f.value for f in GameSetup.model_validate_json(row.setup_json).factions]
                settings, outbox, passed = self._vote_closed(row, vote, seats, "its deadline passed")
            end = pause_end(settings)
            resume = row.status == GameStatus.PAUSED and end is not None and end <= now
            if outbox:
                state = _state(row)
                outbox += await self._board_shown(row, state, settings)  # without the vote
                await self.store.set_settings(game_id, settings, outbox,
                                              due_at=await self._due_index(row, state, settings, row.status))
        if passed and vote is not None:  # passed: it was open
            await self._carry_out(game_id, vote)
        elif (left := settings.get(VOTE_PASSED)) is not None:  # passed, and a crash came before it was carried out
            await self._carry_out(game_id, left)
        if resume:
            await self._resume_by_table(game_id, "the pause it gave is over")

    async def _resume_by_table(self, game_id: str, reason: str | None, rider: Rider = NO_RIDER) -> None:
        """Resume the game as the table's vote (or its pause's end) decided; the pause the table voted is over (in
        the same write)."""
        await self.pause(game_id, False, by=TABLE, reason=reason, rider=Rider(
            lambda settings: {key: value for key, value in rider.settings(settings).items() if key != TABLE_PAUSE},
            rider.told))

    async def override_vote(self, game_id: str, *, by: str, did: str) -> None:
        """A moderator's /admin pause, resume or cancel: the open vote (if any) is closed without a result, and a
        pause the table voted is ended; either is told to the table as the moderator's override (logged)."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            vote, table_pause = row.settings.get(VOTE), row.settings.get(TABLE_PAUSE)
            if vote is None and table_pause is None:
                return
            settings = {key: value for key, value in row.settings.items() if key not in (VOTE, TABLE_PAUSE)}
            outbox = []
            if vote is not None:
                seats = [f.value for f in GameSetup.model_validate_json(row.setup_json).factions]
                outbox += [overridden_post(vote, f"Admin {by}", did),
                           *(ballot_closed(vote, seat) for seat in seats if seat not in vote["answers"])]
            if table_pause is not None and GameSettings.of(row.settings).paused_at is None:  # a moderator resumed it
                outbox.append(_to_table(f"**Moderator override:** Admin {by} {did}; the pause the table voted is "
                                        "over.", logged=True))
            state = _state(row)
            if vote is not None:  # the board drops the vote (none once the game is cancelled: it says so already)
                outbox += await self._board_shown(row, state, settings)
            await self.store.set_settings(game_id, settings, outbox,
                                          due_at=await self._due_index(row, state, settings, row.status))

    # --- absence (issue 26 item 2: bot/app/absence.py) and moderators hearing of trouble (item 5: trouble.py) ----

    async def away(self, game_id: str, user_id: int, until: str) -> datetime:
        """The caller's seat is away until `until` (bot/app/absence.py parse_until; a date and time in the player's
        time zone when /me settings stored one): announced to the table with its end. Returns the end."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            seats = self._seats_for_absence(row, user_id)
            now = self.clock()
            zone = absence.zone_of(await self.store.get_value(absence.HOURS_KEY.format(user=user_id)))
            settings = row.settings
            try:
                ends = absence.parse_until(until, now, zone)
                for faction in seats:  # a player a moderator seated twice is away from both seats
                    settings = absence.start(settings, faction, now, ends)
            except absence.AbsenceError as refusal:
                raise NotAllowed(str(refusal)) from None
            state = _state(row)
            outbox = [_to_table(absence.away_text(settings, faction, user_id), logged=True) for faction in seats]
            if row.status == GameStatus.RUNNING:  # the absent player's due times are no longer shown: they wait
                outbox += await self._due_shown(row, state, settings)
            await self.store.set_settings(game_id, settings, outbox,
                                          due_at=await self._due_index(row, state, settings, row.status))
            return ends

    async def back(self, game_id: str, user_id: int) -> None:
        """The caller's seat is back before its absence ended: announced; their deadlines run again."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            away = [f for f in self._seats_for_absence(row, user_id) if absence.is_away(row.settings, f)]
            if not away:
                raise NotAllowed("You are not away: /me away tells the table you will be.")
            settings, outbox = row.settings, []
            for faction in away:
                settings, told = await self._absence_ended(row, settings, faction, self.clock())
                outbox += told
            state = _state(row)
            await self.store.set_settings(game_id, settings, outbox,
                                          due_at=await self._due_index(row, state, settings, row.status))

    def _seats_for_absence(self, row: GameRecordRow, user_id: int) -> list[Faction]:
        if row.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
            raise NotAllowed(f"The game is {row.status.value}: an absence is for a game going on.")
        seats = [Faction(f) for f, user in row.seats.items() if user == user_id]
        if not seats:
            raise NotAllowed("You have no seat in this game: only a seated player can be away.")
        return seats

    async def _absence_ended(self, row: GameRecordRow, settings: dict, faction: Faction, now: datetime, *,
                             capped: bool = False, by_itself: bool = False) -> tuple[dict, list[OutgoingMessage]]:
        """The settings once `faction`'s absence ends at `now` and what the table (and, at the cap, the moderators)
        is told, the board and the cards with the due times running again."""
        state = _state(row)
        own = [prompt for prompt in state.prompts if prompt.faction == faction]
        opened = await self._opened_times(row, own)
        entries = [absence.Open(_decision(p), opened[p.opened_at]) for p in own if p.opened_at in opened]
        since = row.settings.get(absence.AWAY, {}).get(faction.value, {}).get("since", "")
        ended = absence.end(settings, faction, now, entries, {_decision(p) for p in state.prompts},
                            _stop_began(settings))
        user = row.seats.get(faction.value)
        outbox = [_to_table(absence.back_text(settings, faction, user, capped=capped, by_itself=by_itself),
                            logged=True)]
        if capped and not trouble.told(ended, trouble.cap_key(faction, since), now):
            ended = trouble.remembered(ended, trouble.cap_key(faction, since), now)
            outbox.append(trouble.to_moderators(trouble.cap_text(row.game_id, row.channel_id, faction, user)))
        if row.status == GameStatus.RUNNING:
            outbox += await self._due_shown(row, state, ended)
        return ended, outbox

    async def _opened_times(self, row: GameRecordRow, prompts: list[Prompt]) -> dict[int, datetime]:
        """When the versions these decisions opened at were reached."""
        seqs = {p.opened_at for p in prompts} - {0}
        times = await self.store.action_times(row.game_id, seqs) if seqs else {}
        times[0] = row.play_began_at
        return times

    async def _absences_and_trouble(self, game_id: str, now: datetime) -> list[tuple[str, str]]:
        """A due game's absences and troubles, with one read of the game: the absences whose time (their date, or
        the cap) has come end and the table is told; its moderators hear, once, of each decision waited on for more
        than twice its deadline (`_stuck_moment`). Returns the open decisions whose default applies at once because
        their decider is away (in a game whose absences default) and was not refused: (prompt id, why)."""
        async with self._lock(game_id):
            row = await self._load(game_id)
            if row.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
                return []
            state, outbox = _state(row), []
            settings = trouble.forget_closed(row.settings, {trouble.stuck_key(_decision(p)) for p in state.prompts})
            for faction, capped in absence.ending(row.settings, now):
                settings, told = await self._absence_ended(row, settings, faction, now, capped=capped,
                                                           by_itself=True)
                outbox += told
            if row.status == GameStatus.RUNNING:
                settings, told = await self._stuck_told(row, state, settings, now)
                outbox += told
            if outbox or settings != row.settings:
                await self.store.set_settings(game_id, settings, outbox,
                                              due_at=await self._due_index(row, state, settings, row.status))
            clock = GameSettings.of(settings)
            if row.status != GameStatus.RUNNING or not clock.away:
                return []
            refused = _open_entries(clock.default_refused, state)
            return [(prompt.id, f"the {faction_name(prompt.faction)} player is away")
                    for prompt in blocking_prompts(state)
                    if absence.defaults_now(settings, prompt.faction) and _decision(prompt) not in refused]

    async def _stuck_due(self, row: GameRecordRow, state: GameState, settings: dict, now: datetime) -> datetime | None:
        """When the game next has a decision waited on too long to tell its moderators of (`_stuck_moment`); the
        times decisions opened are read only when one may be."""
        waiting = _may_be_stuck(settings, state, now)
        return _stuck_moment(settings, state, waiting, await self._opened_times(row, waiting), now) if waiting else None

    async def _stuck_told(self, row: GameRecordRow, state: GameState, settings: dict,
                          now: datetime) -> tuple[dict, list[OutgoingMessage]]:
        """The decisions waited on too long by now (`_stuck_moment`), told to the moderators and remembered."""
        waiting = _may_be_stuck(settings, state, now)
        outbox: list[OutgoingMessage] = []
        if not waiting:
            return settings, outbox
        opened = await self._opened_times(row, waiting)
        deadlines = GameSettings.of(settings).deadlines
        for prompt in waiting:
            moment = _stuck_moment(settings, state, [prompt], opened, now)
            if moment is not None and moment <= now:
                seconds = deadlines.get(prompt.kind.value, deadlines.get(ANY_KIND))
                settings = trouble.remembered(settings, trouble.stuck_key(_decision(prompt)), now)
                outbox.append(trouble.to_moderators(
                    trouble.stuck_text(row.game_id, row.channel_id, prompt, opened[prompt.opened_at], seconds)))
        return settings, outbox

    async def tell_of_error(self, game_id: str, error_id: str, where: str) -> None:
        """A bot error in a game (bot/discord/errors.py): its moderators are told, with its error id, once a day for
        the same command or control."""
        async with self._lock(game_id):
            row = await self.store.load_game(game_id)
            now, key = self.clock(), trouble.error_key(where)
            if row is None or trouble.told(row.settings, key, now, trouble.ERROR_AGAIN):
                return
            await self.store.set_settings(
                game_id, trouble.remembered(row.settings, key, now),
                [trouble.to_moderators(trouble.error_text(game_id, row.channel_id, error_id, where))],
                due_at=row.due_at)


def _may_be_stuck(settings: dict, state: GameState, now: datetime) -> list[Prompt]:
    """The decisions the game waits on that its moderators may have to hear of (`_stuck_moment`): not told yet, not
    standing still for an absence, and without a deadline or with a default the rules refused."""
    clock = GameSettings.of(settings)
    deadlines, refused = clock.deadlines, _open_entries(clock.default_refused, state)
    return [prompt for prompt in blocking_prompts(state)
            if not absence.clock_stopped(settings, prompt.faction)
            and (deadlines.get(prompt.kind.value, deadlines.get(ANY_KIND)) is None or _decision(prompt) in refused)
            and not trouble.told(settings, trouble.stuck_key(_decision(prompt)), now)]


def _stuck_moment(settings: dict, state: GameState, waiting: list[Prompt], opened_times: dict[int, datetime],
                  now: datetime) -> datetime | None:
    """When the first of these decisions will have been waited on for more than twice its deadline (3 days without
    one: bot/app/trouble.py), its pauses and waiting absences left out; None when each was told already, stands
    still (its decider is away in a game that waits), or has a deadline whose default the rules did not refuse
    (it is applied then: the game does not wait on it)."""
    clock = GameSettings.of(settings)
    deadlines, refused = clock.deadlines, _open_entries(clock.default_refused, state)
    moments = []
    for prompt in waiting:
        opened = opened_times.get(prompt.opened_at)
        seconds = deadlines.get(prompt.kind.value, deadlines.get(ANY_KIND))
        if (opened is None or absence.clock_stopped(settings, prompt.faction)
                or (seconds is not None and _decision(prompt) not in refused)
                or trouble.told(settings, trouble.stuck_key(_decision(prompt)), now)):
            continue
        start = opened + _stopped(settings, prompt, now) + absence.stood_still(
            settings, prompt.faction, _decision(prompt), opened, now, _stop_began(settings))
        limit = trouble.stuck_limit(None if seconds is None else seconds + _entry(clock.grace, prompt, 0))
        moments.append(start + limit + timedelta(seconds=1))  # more than the limit
    return min(moments, default=None)
