"""What a game showed, version by version, as it was shown: the events kept with its opening (version 0) and with
each action (GameStore), read back by /game log, a reader's export and undo.

The rows a game stored before events were kept (Mentat 0.1.0) have none: those versions are rebuilt by replaying
the actions under the rules installed now. That is faithful only while these rules play them as they were played,
so a replay is checked against a snapshot stored at its last version; a replay that is refused, or that misses
that snapshot, means the rules changed since, and what it would rebuild is not used (RulesChanged) rather than
told or restored wrong.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import TypeAdapter, ValidationError

from bot.app.ports import StoredAction
from engine.actions import parse_action
from engine.errors import ReplayMismatch
from engine.events import Event
from engine.game import state_hash
from engine.model import GameState
from engine.options import GameSetup
from engine.record import replay_steps

_EVENTS = TypeAdapter(list[Event])


class RulesChanged(Exception):
    """Replayed under the rules installed now, a game's versions are not what was played."""


def events_json(events: Sequence[Event]) -> str:
    """Events as kept: their type, words and audience (their data served the messages of the moment)."""
    return json.dumps([{"type": event.type, "message": event.message,
                        "audience": None if event.audience is None else [faction.value for faction in event.audience]}
                       for event in events], separators=(",", ":"), ensure_ascii=False)


def kept_events(text: str) -> list[Event]:
    return _EVENTS.validate_json(text)


def last_untold(opening_json: str | None, stored: Sequence[StoredAction]) -> int | None:
    """The newest version that kept no events (None: every version kept them)."""
    untold = [action.seq for action in stored if action.events_json is None]
    if untold:
        return untold[-1]
    return 0 if opening_json is None else None


def replay_until(setup: GameSetup, stored: Sequence[StoredAction], until: int, snapshot_json: str,
                 keep_state: int | None = None) -> tuple[list[list[Event]], GameState | None]:
    """Replay versions 0 to `until` under the rules installed now and check that version `until` is
    `snapshot_json`, the snapshot stored for it: the events of each version, and the state of version `keep_state`
    when asked. Raises RulesChanged when the replay is refused or misses the snapshot."""
    events, kept = [], None
    actions = (parse_action(action.action_json) for action in stored[:until])
    try:
        for version, step in enumerate(replay_steps(setup, actions)):
            events.append(step.events)
            if version == keep_state:
                kept = step.state
        reached = state_hash(step.state) == state_hash(GameState.model_validate_json(snapshot_json))
    except (ReplayMismatch, ValidationError):  # refused, or a snapshot this Mentat's state no longer reads
        reached = False
    if not reached:
        raise RulesChanged(f"the replay of versions 0 to {until} does not reach the snapshot stored for {until}")
    return events, kept


def shown(setup: GameSetup, opening_json: str | None, stored: Sequence[StoredAction],
          reference: tuple[int, str] | None) -> tuple[list[list[Event] | None], int | None]:
    """The events each version showed, from the opening to the last action: as kept, and for the versions that kept
    none, as a replay up to `reference` (a version at or after the last of them, and its stored snapshot) rebuilds
    them. Returns them and the last version that cannot be rebuilt (None when none): that version and those before
    it are None."""
    kept = [None if text is None else kept_events(text)
            for text in [opening_json, *(action.events_json for action in stored)]]
    if reference is None:
        return kept, None
    try:
        replayed, _ = replay_until(setup, stored, *reference)
    except RulesChanged:
        lost = last_untold(opening_json, stored)
        assert lost is not None  # a replay is asked for only when some version kept no events
        return [None if version <= lost else events for version, events in enumerate(kept)], lost
    return [replayed[version] if events is None else events for version, events in enumerate(kept)], None
