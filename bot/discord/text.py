"""Pure text helpers for the Discord front: parsing command arguments and writing answers (no discord here,
so the console or tests can reuse them)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from bot.app.decision_cards import timestamp
from bot.app.feed import cancellation_text
from bot.app.lobby import options_text, switch_names
from bot.app.ports import GameRecordRow
from bot.app.render import secret_facts
from bot.app.service import NotAllowed
from engine.ids import Faction
from engine.model import Prompt
from engine.names import decision_topic, faction_name, table_decision_name
from engine.secrecy.views import PlayerView

MESSAGE_LIMIT = 2000  # Discord's limit on a message's content


def option_suggestions(current: str, limit: int = 25) -> list[str]:
    """Autocomplete for /game new options: the text typed so far, completed with each option name that fits."""
    done, _, partial = current.rpartition(",")
    prefix = f"{done}," if done else ""
    chosen = {part.strip().partition("=")[0] for part in done.split(",") if part.strip()}
    names = ["all", *switch_names()] if not done else switch_names()
    fitting = [n for n in names if n.startswith(partial.strip().lower()) and n not in chosen]
    return [f"{prefix}{name}"[:100] for name in fitting][:limit]


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Split a message into chunks of at most `limit` characters, at line breaks where possible."""
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:  # a single overlong line is cut hard
            if current:
                chunks.append(current)
                current = ""
            chunks.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            chunks.append(current)
            current = line
        else:
            current = candidate
    if current or not chunks:
        chunks.append(current)
    return chunks


def status_text(game: GameRecordRow, table: PlayerView, due: Mapping[str, datetime] | None = None) -> str:
    """The table's view: game, phase, storm, seats, and whose decisions the game awaits, each until when it is due
    (`due`: prompt id -> time, GameService.due_times)."""
    due = due or {}
    seats = ", ".join(f"{faction_name(Faction(f))} <@{user}>" for f, user in game.seats.items()) or "none yet"
    # No version number: it moves on secret actions too (a standing order), which the table must not count.
    lines = [f"**Game {game.game_id}** ({game.status.value})",
             f"Turn {table.turn}, {table.phase.value.replace('_', ' ')}; storm in sector {table.storm_sector}",
             f"Order: {', '.join(faction_name(f) for f in table.turn_order)}",
             f"Seats: {seats}",
             f"Options: {options_text(table.options)}"]
    if table.winners:
        lines.append(f"Winners: {', '.join(faction_name(f) for f in table.winners)}")
    if cancelled := cancellation_text(game.settings):
        lines.append(cancelled)
    elif table.awaiting:
        lines.append("Waiting for:")
        for awaited in table.awaiting:
            line = (f"- {faction_name(awaited.faction)}: {table_decision_name(awaited.kind)}"
                    f"{' (secret)' if awaited.secret else ''}, decision {awaited.prompt_id}")
            if (when := due.get(awaited.prompt_id)) is not None:
                line += f", due {timestamp(when)} ({timestamp(when, 'R')})"
            lines.append(line)
    else:
        lines.append("No decision is awaited.")
    return "\n".join(lines)


def secrets_text(mine: PlayerView) -> str:
    """What only the viewer's faction knows: spice, hand, traitors and standing orders."""
    own = mine.own
    if own is None or mine.viewer is None:
        return "Your faction is not in this game."
    facts = [f"{label[0].upper()}{label[1:]}: {value}" for label, value in secret_facts(own)]
    return "\n".join([f"**{faction_name(mine.viewer)}**: {own.spice} spice", *facts])


def prompt_title(prompt: Prompt) -> str:
    return f"{prompt.id}: {decision_topic(prompt.kind)}"


def prompts_text(mine: PlayerView) -> str:
    """The viewer's open decisions with their choices: the pull path when DMs cannot be delivered."""
    if not mine.own_prompts:
        return "You have no open decision."
    lines = ["Your open decisions:"]
    for prompt in mine.own_prompts:
        lines.append(f"- {prompt_title(prompt)}{' (secret)' if prompt.secret else ''}")
        if prompt.options:
            shown = ", ".join(prompt.options[:25])
            more = f" (and {len(prompt.options) - 25} more)" if len(prompt.options) > 25 else ""
            lines.append(f"  choices: {shown}{more}")
        if prompt.detail:
            lines.append(f"  limits: {', '.join(f'{k}={v}' for k, v in prompt.detail.items())}")
    return "\n".join(lines)


def parse_assignments(text: str | None) -> dict[str, str]:
    """"a=b, c=d" as {"a": "b", "c": "d"} (keys and values stripped); nothing, or "none", is {}."""
    if text is None or text.strip().lower() in ("", "none"):
        return {}
    pairs: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise NotAllowed(f"Expected key=value pairs separated by commas, not {part.strip()!r}.")
        pairs[key.strip()] = value.strip()
    return pairs
