"""Table votes bound to seats: pause (for a length, capped), resume, extend a seat's deadlines, replace a player, end
the game. Each seat answers Yes or No once, by the buttons of its ballot in its player's DMs; the tally stays
secret until the vote closes (every seat has answered, or its deadline passed), then the table is told the
counts (never who voted what) and a vote that passed is carried out. A majority of the seats decides; ending the
game needs every seat but one. One vote open at a time per game.

Kept in the game's settings: VOTE (the open vote), VOTES_MADE (each vote's number), TABLE_PAUSE (a pause the
table voted: until when; the tick resumes the game then).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from enum import StrEnum

from bot.app.decision_cards import timestamp
from bot.app.ports import OutgoingMessage, Recipient, keyed_seat
from bot.app.settings_model import GameSettings, TableVote
from engine.ids import Faction
from engine.names import counted, faction_name, faction_possessive, the_faction

VOTE = "table_vote"  # settings: the open vote (`new_vote`)
VOTES_MADE = "table_votes_made"  # settings: how many votes the game has opened
TABLE_PAUSE = "table_pause"  # settings: {"since": the pause's paused_at, "until": when it ends by itself}
# settings: a vote that passed and is still to be carried out: kept with the vote's closing, dropped once done, so
# that a crash in between leaves it for the next tick (carried out at least once, never lost)
VOTE_PASSED = "table_vote_passed"
BALLOT_KEY = "vote"  # a ballot's key: vote:<number>:<faction>
TABLE = "the table's vote"  # who did what a vote decided (GameService's announcements)
VOTE_HOURS = 24  # a vote closes at the latest this long after it opened
MAX_PAUSE_HOURS = 7 * 24  # the longest pause a vote gives: then the game resumes by itself
MAX_EXTEND_HOURS = 72  # the most time a vote gives a seat's open decisions


class VoteKind(StrEnum):
    PAUSE = "pause"
    RESUME = "resume"
    EXTEND = "extend"
    REPLACE = "replace"
    END = "end"


def ballot_key(number: int, faction: str) -> str:
    return f"{BALLOT_KEY}:{number}:{faction}"


def parse_ballot_key(key: str | None) -> tuple[int, Faction] | None:
    """The vote's number and the seat of a ballot from its key; None for any other message."""
    found = keyed_seat(key, BALLOT_KEY)
    return (found[1], found[0]) if found is not None else None


def vote_seat(vote: dict) -> Faction:
    """The seat a vote to extend or to replace is about: those always name one (GameService._check_vote)."""
    return Faction(vote["faction"])


def hours_words(hours: float) -> str:
    if hours % 24 == 0:
        days = int(hours // 24)
        return counted(days, "day")
    return f"{hours:g} hour{'s' if hours != 1 else ''}"


def vote_words(vote: dict) -> str:
    """What the vote asks, as a question's words: "pause the game for 3 days"."""
    kind = VoteKind(vote["kind"])
    if kind == VoteKind.PAUSE:
        return f"pause the game for {hours_words(vote['hours'])} (then it resumes by itself)"
    if kind == VoteKind.RESUME:
        return "resume the game"
    if kind == VoteKind.EXTEND:
        return f"give {the_faction(vote_seat(vote))} {hours_words(vote['hours'])} more for their open decisions"
    if kind == VoteKind.REPLACE:
        return f"replace {faction_possessive(vote_seat(vote))} player (the seat is offered to a substitute)"
    return "end the game now, without a winner"


def seats_needed(kind: str, seats: int) -> int:
    """The yes answers a vote needs: a majority of the seats; every seat but one to end the game."""
    if kind == VoteKind.END:
        return max(seats - 1, 1)
    return seats // 2 + 1


def new_vote(number: int, kind: VoteKind, caller: Faction, now: datetime, *, hours: float | None = None,
             faction: Faction | None = None) -> dict:
    return {"number": number, "kind": kind.value, "caller": caller.value, "opened": now.isoformat(),
            "closes": (now + timedelta(hours=VOTE_HOURS)).isoformat(), "hours": hours,
            "faction": faction.value if faction else None, "answers": {}}


def closes_at(vote: dict) -> datetime:
    return datetime.fromisoformat(vote["closes"])


def board_line(vote: TableVote, seats: Iterable[Faction]) -> str:
    """The status board's line while the vote is open, for players who missed its opening post: what it asks, the
    seats still to answer (public, as the board's decisions are) and when it closes; never an answer nor the tally,
    which stay secret until it closes."""
    still = [faction_name(seat) for seat in seats if seat.value not in vote.answers]
    return (f"Table vote open: {vote_words(vote.model_dump())}; still to answer: {', '.join(still)}; closes by "
            f"{timestamp(vote.closes)}.")


def opening_post(vote: dict, caller_user: int, seats: int) -> OutgoingMessage:
    """The vote's announcement in the channel (logged): what it asks, who called it, how it is answered and decided."""
    closes = closes_at(vote)
    needed = seats_needed(vote["kind"], seats)
    rule = ("every seat but one" if vote["kind"] == VoteKind.END else "a majority of the seats") + f" ({needed} of "
    text = (f"**Table vote: {vote_words(vote)}?** Called by {the_faction(Faction(vote['caller']))} (<@{caller_user}>). "
            "Each seat answers Yes or No with the buttons in its player's DMs, once. The answers stay secret until "
            f"the vote closes, when every seat has answered or at {timestamp(closes)} ({timestamp(closes, 'R')}); it "
            f"passes with {rule}{seats}).")
    return OutgoingMessage(recipient=Recipient(channel=True), text=text, logged=True)


def ballot(vote: dict, faction: Faction) -> OutgoingMessage:
    """A seat's ballot in its player's DMs, with Yes and No (the gateway adds them by the key)."""
    closes = closes_at(vote)
    text = (f"**Table vote: {vote_words(vote)}?** Your seat ({faction_name(faction)}) answers once, with the buttons "
            f"below, by {timestamp(closes)} ({timestamp(closes, 'R')}); no answer counts as not yes. Nobody sees "
            "your answer: the table is told the counts when the vote closes.")
    return OutgoingMessage(recipient=Recipient(faction=faction.value), text=text,
                           key=ballot_key(vote["number"], faction.value))


def ballot_answered(vote: dict, faction: Faction, yes: bool) -> OutgoingMessage:
    """The line a ballot gets when its seat answers (its buttons disabled)."""
    return OutgoingMessage(recipient=Recipient(faction=faction.value), edit_of=ballot_key(vote["number"],
                                                                                          faction.value),
                           text=f"**You voted {'yes' if yes else 'no'}.**")


def ballot_closed(vote: dict, faction: str,
                  why: str = "The vote is closed; the channel has its result.") -> OutgoingMessage:
    """The line the ballot of a seat that did not answer gets when the vote closes (or its seat changes hands)."""
    return OutgoingMessage(recipient=Recipient(faction=faction), edit_of=ballot_key(vote["number"], faction),
                           text=f"**{why}**")


def tally(vote: dict, seats: list[str]) -> tuple[bool, int, int, int]:
    """(passed, yes, no, unanswered) over the game's seats."""
    answers = vote.get("answers", {})
    yes = sum(1 for seat in seats if answers.get(seat) is True)
    no = sum(1 for seat in seats if answers.get(seat) is False)
    return yes >= seats_needed(vote["kind"], len(seats)), yes, no, len(seats) - yes - no


def result_post(vote: dict, seats: list[str], why: str) -> OutgoingMessage:
    """The vote's result in the channel (logged): the counts only, never who answered what."""
    passed, yes, no, unanswered = tally(vote, seats)
    counts = f"{yes} yes, {no} no" + (f", {unanswered} without an answer" if unanswered else "")
    needed = seats_needed(vote["kind"], len(seats))
    text = (f"**Table vote {'passed' if passed else 'failed'}: {vote_words(vote)}.** {counts} ({why}; it needed "
            f"{needed} yes of {len(seats)} seats).")
    return OutgoingMessage(recipient=Recipient(channel=True), text=text, logged=True)


def overridden_post(vote: dict, by: str, did: str) -> OutgoingMessage:
    """A moderator's override closes the open vote: told (and logged) as an override; no tally is shown."""
    return OutgoingMessage(recipient=Recipient(channel=True), logged=True,
                           text=f"**Moderator override:** {by} {did}; the open table vote ({vote_words(vote)}) is "
                                "closed without a result.")


def pause_end(settings: dict) -> datetime | None:
    """When the running pause the table voted ends by itself; None when the running pause (if any) is not one."""
    typed = GameSettings.of(settings)
    if typed.table_pause is None or typed.table_pause.since != typed.paused_at:
        return None
    return typed.table_pause.until


def timers_due(settings: dict) -> datetime | None:
    """The earliest of the open vote's deadline and the end of a pause the table voted (GameRecordRow.due_at); a
    passed vote still to carry out is due at once (its closing's time)."""
    vote = GameSettings.of(settings).table_vote
    moments = [vote.closes] if vote is not None else []
    if (passed := GameSettings.of(settings).table_vote_passed) is not None:
        moments.append(passed.opened)
    if (end := pause_end(settings)) is not None:
        moments.append(end)
    return min(moments, default=None)


def earliest(*moments: datetime | None) -> datetime | None:
    """The first of the moments given (None: none is)."""
    return min((moment for moment in moments if moment is not None), default=None)
