"""Moderators hear of trouble (issue 26 item 5): a bot error in a game, a game waiting on one decision far past its
deadline, an absence that reached its cap. Each is told once, by DM to the game's moderators (its creator and the
server's moderator role: Recipient.moderators, delivered by Gateway.tell_moderators), never to the table, and in
words the table could read: a moderator may also play, so nothing secret (a secret decision is "a secret decision",
as the reminders say). What was told is kept in the game's settings (TOLD), so that no trouble is told twice.
Discord-free and pure: the service (bot/app/service.py, its "absence and trouble" section) queues these.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from bot.app.absence import CAP, WINDOW
from bot.app.decision_cards import timestamp
from bot.app.paces import duration
from bot.app.ports import OutgoingMessage, Recipient
from bot.app.settings_model import GameSettings
from engine.ids import Faction
from engine.model import Prompt
from engine.names import decision_name, faction_possessive, the_faction

TOLD = "troubles_told"  # settings: {trouble key: when its moderators were told (ISO)}
STUCK_FACTOR = 2  # a decision waited on for more than twice its deadline is trouble
STUCK_WITHOUT_DEADLINE = timedelta(days=3)  # ... or for this long, when its kind has no deadline
ERROR_AGAIN = timedelta(days=1)  # the same failure (the same command or control) in a game is told once a day


def told(settings: dict[str, Any], key: str, now: datetime, again: timedelta | None = None) -> bool:
    """Whether this trouble was told already (with `again`: within that long before `now`)."""
    when = GameSettings.of(settings).troubles_told.get(key)
    if when is None:
        return False
    return again is None or now - when < again


def remembered(settings: dict[str, Any], key: str, now: datetime) -> dict[str, Any]:
    return {**settings, TOLD: {**settings.get(TOLD, {}), key: now.isoformat()}}


def forget_closed(settings: dict[str, Any], open_keys: set[str]) -> dict[str, Any]:
    """The settings without the stuck decisions told that are closed now (the others are kept)."""
    kept = {key: when for key, when in settings.get(TOLD, {}).items()
            if not key.startswith("stuck:") or key in open_keys}
    return {**settings, TOLD: kept} if kept != settings.get(TOLD, {}) else settings


def to_moderators(text: str) -> OutgoingMessage:
    return OutgoingMessage(recipient=Recipient(moderators=True), text=text)


def _game(game_id: str, channel_id: int) -> str:
    return f"the game {game_id} (<#{channel_id}>)"


def error_key(where: str) -> str:
    return f"error:{where}"


def error_text(game_id: str, channel_id: int, error_id: str, where: str) -> str:
    return (f"Mentat hit an error in {_game(game_id, channel_id)}, in {where} (error id {error_id}). The player was "
            "told something went wrong; the bot's log has the details under that id. If it happens again, the game "
            "may need a moderator (/admin), or the bot's host.")


def stuck_key(decision: str) -> str:
    return f"stuck:{decision}"


def stuck_limit(deadline_seconds: int | None) -> timedelta:
    """How long a decision may be waited on before its moderators hear of it."""
    if deadline_seconds is None:
        return STUCK_WITHOUT_DEADLINE
    return timedelta(seconds=STUCK_FACTOR * deadline_seconds)


def stuck_text(game_id: str, channel_id: int, prompt: Prompt, since: datetime, deadline_seconds: int | None) -> str:
    what = "a secret decision" if prompt.secret else decision_name(prompt.kind)
    limit = (f"more than twice its deadline ({duration(deadline_seconds)})" if deadline_seconds is not None
             else f"more than {STUCK_WITHOUT_DEADLINE.days} days (its kind has no deadline)")
    return (f"{_game(game_id, channel_id)[0].upper()}{_game(game_id, channel_id)[1:]} has waited on "
            f"{faction_possessive(prompt.faction)} decision ({what}) since {timestamp(since)}, {limit}. A moderator "
            f"may remind the player, apply its default (/admin), or find a substitute.")


def cap_key(faction: Faction, since: str) -> str:
    return f"cap:{faction.value}:{since}"


def cap_text(game_id: str, channel_id: int, faction: Faction, user_id: int | None) -> str:
    who = f"{the_faction(faction)} player" + (f" (<@{user_id}>)" if user_id is not None else "")
    return (f"In {_game(game_id, channel_id)}, {who} reached this game's cap of absence ({CAP.days} days in any "
            f"{WINDOW.days}): the absence has ended and the table was told; their decisions take their defaults as "
            "their deadlines pass. If they are still away, a moderator may find a substitute.")
