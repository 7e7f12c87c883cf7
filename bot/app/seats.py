"""Substitutes: a seat that changes hands in a running game, and what the newcomer and the old player read.

A seat changes hands by its player (/game sub), by a moderator (/admin seat), or by a call for a substitute
(/game sub-call, or a table vote to replace a player: bot/app/votes.py) whose "Take this seat" button anyone not
seated may press. The newcomer gets a catch-up by DM: everything the seat knows, built from the engine's view of
that seat alone (never the raw state), their open decisions as fresh cards, and the public story of the last
turns. The old player's cards, buttons and commands then answer `now_played_by`.

Kept in the game's settings: FORMER_PLAYERS (who handed which seat over) and SEAT_CALLS (the open calls).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.app.ports import GameRecordRow, OutgoingMessage, Recipient, keyed_seat
from bot.app.render import card_key, decision_card, secret_facts
from bot.app.settings_model import GameSettings
from engine.ids import Faction
from engine.model import GameState, Prompt
from engine.names import faction_name, the_faction
from engine.secrecy.views import view

FORMER_PLAYERS = "former_players"  # settings: {faction: [user ids who played it and handed it over]}
SEAT_CALLS = "seat_calls"  # settings: {faction: the number of its open call for a substitute}
SEAT_CALLS_MADE = "seat_calls_made"  # settings: how many calls the game has posted (each call's number)
CALL_KEY = "seat-call"  # the key of a call's post: seat-call:<faction>:<number>
STORY_LENGTH = 20  # entries of the public log the catch-up tells at most
STORY_CHARACTERS = 3600  # and at most this much of them, the latest first (two Discord messages)


def call_key(faction: str, number: int) -> str:
    return f"{CALL_KEY}:{faction}:{number}"


def parse_call_key(key: str | None) -> tuple[Faction, int] | None:
    """The seat and number of a call's post from its key; None for any other message."""
    return keyed_seat(key, CALL_KEY)


def now_played_by(game: GameRecordRow, user_id: int, faction: str | None = None) -> str | None:
    """What a player who handed a seat over is told when they use its cards, buttons or commands: "This seat is now
    played by <@new>."; None when `user_id` never handed over that seat (any seat, without `faction`)."""
    former = GameSettings.of(game.settings).former_players
    seats = [faction] if faction is not None else list(former)
    for seat in seats:
        holder = game.seats.get(seat)
        if user_id in former.get(seat, []) and holder is not None and holder != user_id:
            return f"This seat ({faction_name(Faction(seat))}) is now played by <@{holder}>."
    return None


def with_former_player(settings: dict, faction: str, old: int | None, new: int) -> dict:
    """The settings once `old` handed `faction` to `new`: `old` is a former player of it, `new` no longer is."""
    former = {seat: [user for user in users if user != new] for seat, users in settings.get(FORMER_PLAYERS, {}).items()}
    if old is not None and old != new:
        former[faction] = [*former.get(faction, []), old]
    return {**settings, FORMER_PLAYERS: {seat: users for seat, users in former.items() if users}}


def catch_up(state: GameState, faction: Faction, due: Callable[[Prompt], datetime | None],
             story: list[str]) -> list[OutgoingMessage]:
    """The newcomer's catch-up DMs: the faction and all the seat knows (the engine's view of that seat: spice,
    hand, traitors, the BT's marks and traps, standing orders, readied Karamas), then the public story of the last
    turns, then each open decision of the seat as a fresh card (which later closes in place of the old one)."""
    seen = view(state, faction)
    own = seen.own
    lines = [f"**You now play {the_faction(faction)}.** Everything your seat knows, as of now:",
             f"- Spice: {own.spice if own is not None else 0}"]
    lines += [f"- {label[0].upper()}{label[1:]}: {value}" for label, value in (secret_facts(own) if own else [])]
    mine = [prompt for prompt in state.prompts if prompt.faction == faction]
    lines.append(f"Your open decisions follow, each as a card ({len(mine)})." if mine
                 else "You have no open decision now; your cards come by DM as the game asks.")
    lines.append("/me hand shows this again; /me act and /me orders work for you from now on.")
    told = [OutgoingMessage(recipient=Recipient(faction=faction.value), text="\n".join(lines))]
    story = _latest(story, STORY_CHARACTERS)
    if story:
        told.append(OutgoingMessage(recipient=Recipient(faction=faction.value),
                                    text="**The story so far** (the public log's last entries):\n" + "\n".join(story)))
    told += [decision_card(state, prompt, due(prompt)) for prompt in mine]
    return told


def _latest(entries: list[str], room: int) -> list[str]:
    """The latest of the entries, in order, that fit in `room` characters (the last one cut if it alone is longer)."""
    kept: list[str] = []
    for entry in reversed(entries):
        if sum(len(e) + 1 for e in kept) + len(entry) > room:
            if not kept:
                kept.append(entry[:room - 1] + "…")
            break
        kept.append(entry)
    return kept[::-1]


def old_cards_closed(state: GameState, faction: Faction, new: int) -> list[OutgoingMessage]:
    """The line each of the seat's open cards gets in the old player's DMs (their controls disabled): the seat has
    changed hands. Queued before the fresh cards, which then stand for the decisions."""
    return [OutgoingMessage(recipient=Recipient(faction=faction.value), edit_of=card_key(prompt.id),
                            text=f"**This seat is now played by <@{new}>.**")
            for prompt in state.prompts if prompt.faction == faction]


def call_post(faction: Faction, number: int, why: str) -> OutgoingMessage:
    """The call for a substitute in the channel, with its "Take this seat" button (the gateway adds it by the
    key); logged."""
    text = (f"**{faction_name(faction)} seat open for a substitute** ({why}). Anyone in this server who is not "
            "seated in this game may take it with the button below; the first to press it plays "
            f"{the_faction(faction)} from then on, and gets by DM everything the seat knows.")
    return OutgoingMessage(recipient=Recipient(channel=True), text=text, key=call_key(faction.value, number),
                           logged=True)


def call_taken(faction: Faction, number: int, user_id: int) -> OutgoingMessage:
    """The line a call's post gets when its seat is taken (its button disabled)."""
    return OutgoingMessage(recipient=Recipient(channel=True), edit_of=call_key(faction.value, number),
                           text=f"**Taken by <@{user_id}>.**")
