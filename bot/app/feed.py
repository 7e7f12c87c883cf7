"""The game's channel as a story that can be read a week later (issue 14): the detail goes to a thread per turn,
the channel keeps a post per phase that grows as the phase runs, the turn's map, and a pinned status board.

- Each turn opens with a channel post (key "turn:N") that is also the storm's phase post, opens the turn's thread
  and, once the storm has moved, carries the table's map as the storm left it; each later phase gets a channel
  post ("phase:N:<phase>") when it starts. Their story lines (what a player must know: the storm's move, the
  spice blown, the cards sold, shipments, moves and revivals, battle results, spice collected, Karama, alliances,
  corrections) are added to the phase's post as they happen; after the battles the map is posted again.
- The turn's thread gets every public event, a phase's in one post that grows as the phase runs (a line per
  action; past Discord's 2,000 characters it goes on in a new post); the auction of one card is one post
  edited as the bids come in; a window of decisions (storm dials, battle plans, the revivals...) is a line of its
  phase's post ("Storm cards: asked of ...") and another once the last has answered ("all answered"): who is still
  to answer is on the status board, which every action replaces (a post of its own, or edits at each answer, would
  be requests saying the same, issue 24);
  and a decision opened for a player whose DMs are closed to the bot calls them by name.
- The status board: one pinned channel post, replaced after every action, says where the game stands.

Built from public events and the table's view only: nothing here can carry a secret. Every public event is still
in /game log and the export.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from functools import cache
from typing import Any

from bot.app.decision_cards import timestamp
from bot.app.ports import OutgoingMessage, Recipient, mention
from bot.app.settings_model import GameSettings, TableVote
from bot.app.votes import board_line
from engine.data import load_game_data
from engine.events import Event, EventType
from engine.factions.bt_reveal_karama import set_aside_prompts
from engine.flow import ASKED_AGAIN_KINDS
from engine.ids import Faction
from engine.model import GameState, Phase, Prompt, PromptKind
from engine.names import counted, decision_name, faction_name, table_decision_name
from engine.phases.turn import PHASE_TITLES
from engine.secrecy.views import PlayerView, view

DeadlineOf = Callable[[Prompt], datetime | None]
STATUS_KEY = "status"
PAUSED_WORDS = ("**The game is paused.** Every deadline stands still until a moderator resumes it; then each decision "
                "has the time it had left.")
CANCELLED = "cancelled"  # the game's settings key of its cancellation: {"by": who, "reason": why}
SETUP_TITLE = "Setup"

# What the channel's phase posts tell (the rest is in the turn's thread): the events a player must know.
STORY = {
    EventType.STORM_MOVED, EventType.STORM_LOSSES, EventType.FREMEN_HALF_STORM_LOSSES, EventType.STORM_SPICE,
    EventType.STORM_FIXED, EventType.CARD_PLAYED,
    EventType.SPICE_BLOW, EventType.SPICE_BLOW_IN_STORM, EventType.SECOND_SPICE_BLOW, EventType.WORM,
    EventType.WORM_LOSSES, EventType.WORM_SPICE, EventType.WORM_PLACED,
    EventType.WORM_RIDDEN, EventType.KARAMA_WORM, EventType.NEXUS_CLOSED, EventType.ALLIANCE_FORMED,
    EventType.ALLIANCE_BROKEN,
    EventType.AUCTION_DEALT, EventType.CARD_SOLD, EventType.AUCTION_RETURNED, EventType.EXTRA_CARD_DRAWN,
    EventType.CARD_GIVEN, EventType.TRAP_LAID, EventType.TRAPS_LAID,
    EventType.CHOAM_CHARITY,
    EventType.REVIVED, EventType.SHIPPED, EventType.SHIPPED_BACK, EventType.MOVED, EventType.ADVISOR_SENT,
    EventType.TRAP_TRIGGERED, EventType.BT_CONTROL_ENDED,
    EventType.BG_COEXIST, EventType.BG_FIGHTERS,
    EventType.BATTLE_WON, EventType.EXPLOSION, EventType.TRAITOR_CALLED, EventType.DOUBLE_TRAITOR,
    EventType.LEADER_CAPTURED, EventType.CAPTURED_LEADER_KILLED,
    EventType.KWISATZ_HADERACH_ACTIVATED, EventType.KWISATZ_HADERACH_KILLED, EventType.TRAP_ATTACK, EventType.BT_ATTACK,
    EventType.BT_IMPAIRMENT,
    EventType.BT_TRAP_RESOLVED, EventType.BT_ATTACK_RESOLVED,
    EventType.BT_TRAITOR_REVEALED, EventType.BT_BETRAYAL,
    EventType.SPICE_COLLECTED, EventType.STRONGHOLD_INCOME, EventType.SPICE_WIN_DECLARED,
    EventType.SPICE_DECLARATION_ENDED,
    EventType.KARAMA_PLAYED, EventType.SPECIAL_KARAMA, EventType.BRIBE_GIVEN, EventType.ALLY_SPICE_GIVEN,
    EventType.TRUTHTRANCE_ANSWERED,
    EventType.ADMIN_TOKENS, EventType.ADMIN_STORM, EventType.ADMIN_LEADER, EventType.ADMIN_CARD,
    EventType.ADMIN_SET_SPICE, EventType.ADMIN_FORCED_DEFAULT,
    EventType.GAME_CREATED, EventType.DOTS_ASSIGNED, EventType.SETUP_COMPLETE, EventType.STARTING_TOKENS_PLACED,
}
AUCTION = {  # one post a card, in the thread
    EventType.CARD_UP, EventType.BID_MADE, EventType.BID_PASSED, EventType.CARD_SOLD, EventType.AUCTION_RETURNED,
}
# Decisions asked of several factions at once: their answers are counted in one post, not told one by one.
WINDOWS = {PromptKind.STORM_DIAL: "Storm dials", PromptKind.STORM_CARDS: "Storm cards",
           PromptKind.TRAITOR_PICK: "Traitor picks", PromptKind.BATTLE_PLAN: "Battle plans",
           PromptKind.TRAITOR_CALL: "Traitor calls", PromptKind.REVIVAL: "Revival", PromptKind.NEXUS: "The Nexus",
           PromptKind.BT_REVEAL_KARAMA: "Karama against the Bene Tleilaxu reveal"}
# BT-51: while a reveal's Karama window is open the decisions open at the reveal are set aside, and come back as
# they were once it closes (engine/factions/bt_reveal_karama.py): paused, not answered.
KARAMA_WINDOW_WORDS = "every faction to answer about Karama against the Bene Tleilaxu reveal (BT-51)"


def turn_key(turn: int) -> str:
    return f"turn:{turn}"


def phase_key(turn: int, phase: str) -> str:
    """The channel post of a phase; the storm's is the turn's own post, the setup's the game's opening post."""
    return turn_key(turn) if phase in (Phase.STORM.value, Phase.SETUP.value) else f"phase:{turn}:{phase}"


def detail_key(turn: int, phase: str) -> str:
    """The turn's thread post of a phase's detail (every public event its channel post leaves out)."""
    return f"detail:{turn}:{phase}"


def _channel(text: str, **fields) -> OutgoingMessage:
    return OutgoingMessage(recipient=Recipient(channel=True), text=text, **fields)


def _thread(turn: int, text: str, **fields) -> OutgoingMessage:
    return OutgoingMessage(recipient=Recipient(channel=True, thread=turn_key(turn)), text=text, **fields)


def _add_to(key: str, text: str, recipient: Recipient) -> OutgoingMessage:
    """Lines added to the post created under `key` (which goes on in a new post past Discord's limit)."""
    return OutgoingMessage(recipient=recipient, text=text, edit_of=key, key=key)


class _Segment:
    """An action's events between two phase starts: they belong to one phase of one turn."""

    def __init__(self, turn: int, phase: str) -> None:
        self.turn, self.phase = turn, phase
        self.events: list[Event] = []


def _segments(events: list[Event], before: GameState | None) -> list[_Segment]:
    first = _Segment(before.turn, before.phase.value) if before is not None else _Segment(0, Phase.SETUP.value)
    segments = [first]
    for event in events:
        if event.public and event.type == EventType.PHASE_STARTED:
            segments.append(_Segment(event.data["turn"], event.data["phase"]))
        segments[-1].events.append(event)
    return segments


def feed_messages(events: list[Event], before: GameState | None, after: GameState,
                  dm_closed: Collection[str] = ()) -> list[OutgoingMessage]:
    """The channel's and the threads' messages for one action (or the start, `before` None). `dm_closed`: the
    factions (values) the bot cannot DM, whose players are called in the turn's thread for each new decision."""
    messages: list[OutgoingMessage] = []
    if before is None and any(e.type == EventType.GAME_CREATED for e in events):  # the start (not a resumed game)
        messages.append(_channel(f"**{SETUP_TITLE}.** The game begins; its setup, move by move, is in the thread "
                                 "below.", key=turn_key(0), opens_thread=f"{SETUP_TITLE}"))
    counted = _counted_answers(events, before)
    segments = _segments(events, before)

    @cache
    def board() -> str:  # the table's view as this action leaves it, for the maps its posts carry (if any)
        return view(after, None).model_dump_json(exclude_defaults=True)

    closed = _windows_closed(before, after)  # told right after the answer that closed them, in their phase
    for number, segment in enumerate(segments):
        messages += _segment_messages(segment, counted, ended=number < len(segments) - 1, board=board,
                                      closed=closed if number == 0 else [])
    if opened := _windows_opened(before, after):  # told after all else: the action opened them last
        messages.append(_add_to(detail_key(after.turn, after.phase.value), "\n".join(opened),
                                Recipient(channel=True, thread=turn_key(after.turn))))
    calls = _calls(before, after, dm_closed)
    if calls:
        messages.append(_thread(after.turn, "\n".join(calls)))
    return messages


def _segment_messages(segment: _Segment, counted: dict[int, bool], ended: bool,
                     board: Callable[[], str], closed: list[str]) -> list[OutgoingMessage]:
    """`ended`: the phase ends within this action (another one starts after it). `board`: the table's view once the
    action is done, for a map posted with its messages (the storm's, once the storm has moved; after the battles).
    `closed`: the lines of the windows this action closed, told after its last answer."""
    messages: list[OutgoingMessage] = []
    public = [e for e in segment.events if e.public]
    story = [e.message for e in public if e.type in STORY]
    opening = next((e for e in public if e.type == EventType.PHASE_STARTED), None)
    # A phase that began and ended in one action with nothing to tell (a turn without battles) gets no post of
    # its own, nor a map after it: its start and end are in the turn's thread. The turn's own post always comes.
    silent = (opening is not None and ended and not story
              and phase_key(segment.turn, segment.phase) != turn_key(segment.turn))
    if opening is not None and not silent:
        messages += _phase_opening(segment.turn, segment.phase)
    if story:
        told = _add_to(phase_key(segment.turn, segment.phase), "\n".join(f"- {line}" for line in story),
                       Recipient(channel=True))
        if any(e.type == EventType.STORM_MOVED for e in public):  # the turn's post shows the board the storm left
            told = told.model_copy(update={"map_of": board()})
        messages.append(told)
    told_here = [e for e in public if e.type not in AUCTION | {EventType.PHASE_STARTED} and not counted.get(id(e))]
    answered = max((n + 1 for n, e in enumerate(told_here) if e.type == EventType.DECISION_MADE), default=0)
    detail = [e.message for e in told_here[:answered]] + closed + [e.message for e in told_here[answered:]]
    if detail:  # the phase's detail is one post in the turn's thread, growing as the phase runs
        messages.append(_add_to(detail_key(segment.turn, segment.phase), "\n".join(detail),
                                Recipient(channel=True, thread=turn_key(segment.turn))))
    messages += _auction(segment, public)
    if any(e.type == EventType.BATTLES_OVER for e in public) and not silent:
        messages.append(_channel(f"**Turn {segment.turn} · after the battles.** The map as it stands.",
                                 map_of=board()))
    ending = [e.message for e in public if e.type == EventType.GAME_OVER]  # the end is a post of its own
    if ending:
        messages.append(_channel("\n".join(ending)))
    return messages


def _counted_answers(events: list[Event], before: GameState | None) -> dict[int, bool]:
    """The "X answered" events of decisions that were part of a window still of several: its post tells them once
    all have answered (a decision asked alone, or the last of its window, is told as it is)."""
    windows = _by_window(before)
    in_window = {p.faction for (kind, _), prompts in windows.items() if kind in WINDOWS and len(prompts) > 1
                 for p in prompts}
    return {id(e): e.type == EventType.DECISION_MADE and Faction(e.data.get("faction", "")) in in_window
            for e in events if e.type == EventType.DECISION_MADE and e.data.get("faction")}


def _phase_opening(turn: int, phase: str) -> list[OutgoingMessage]:
    title = PHASE_TITLES[Phase(phase)]
    if phase == Phase.STORM.value:  # the turn's post: the storm's phase post (its map once the storm moved), the thread
        return [_channel(f"**Turn {turn} · {title}.** The turn's detail is in its thread; the map follows the storm.",
                         key=turn_key(turn), opens_thread=f"Turn {turn}")]
    return [_channel(f"**Turn {turn} · {title}.**", key=phase_key(turn, phase))]


def _auction(segment: _Segment, public: list[Event]) -> list[OutgoingMessage]:
    """One thread post per card up for auction ("auction:N:k"), its bids and its sale added as they come."""
    messages = []
    for event in public:
        if event.type not in AUCTION:
            continue
        number = event.data.get("card_number")
        if number is None:  # the unsold cards going back: told as detail
            messages.append(_thread(segment.turn, event.message))
            continue
        key = f"auction:{segment.turn}:{number}"
        if event.type == EventType.CARD_UP:
            messages.append(_thread(segment.turn, event.message, key=key))
        else:
            messages.append(_add_to(key, event.message, Recipient(channel=True, thread=turn_key(segment.turn))))
    return messages


def _by_window(state: GameState | None) -> dict[tuple[PromptKind, int], list[Prompt]]:
    """The open decisions by kind and the version that opened them: those opened together form a window."""
    windows: dict[tuple[PromptKind, int], list[Prompt]] = {}
    for prompt in state.prompts if state is not None else []:
        windows.setdefault((prompt.kind, prompt.opened_at), []).append(prompt)
    return windows


def _windows_closed(before: GameState | None, after: GameState) -> list[str]:
    """A window (a storm-card window, both battle plans, the revivals...) is told by a line of its phase's post in
    the thread when it opens (`_windows_opened`) and another once all have answered, this; who is still to answer
    meanwhile is on the status board. A window set aside by a Karama window (BT-51) is told paused, and asked again
    once that closes. A window asked of one faction is told alike: once one answer is left, nothing here can tell
    whether others came before it. Added to a post the action edits anyway, a line costs no request of its own."""
    was, now, paused = _by_window(before), _by_window(after), paused_ids(after)
    closed = []
    for window, prompts in was.items():
        remaining = now.get(window, [])
        is_paused = any(p.id in paused for p in prompts)
        if window[0] in WINDOWS and len(remaining) < len(prompts) and (is_paused or not remaining):
            closed.append(_paused_text(window[0]) if is_paused else f"{WINDOWS[window[0]]}: all answered.")
    return closed


def _windows_opened(before: GameState | None, after: GameState) -> list[str]:
    """Whom each window this action opened asks (public: the view's awaited)."""
    was, resumed = _by_window(before), paused_ids(before)
    return [_counter_text(window[0], prompts, again=any(p.id in resumed for p in prompts))
            for window, prompts in _by_window(after).items()
            if window not in was and window[0] in WINDOWS]


def paused_ids(state: GameState | None) -> set[str]:
    """The decisions set aside while a Karama window is open (BT-51): they come back once it closes."""
    return {p.id for p in set_aside_prompts(state)} if state is not None else set()


def _counter_text(kind: PromptKind, asked: list[Prompt], *, again: bool = False) -> str:
    what = WINDOWS[kind] + (" (asked again after the Karama window)" if again else "")
    return (f"{what}: asked of {len(asked)} ({', '.join(faction_name(p.faction) for p in asked)}); the status board "
            "shows who is still to answer.")


def _paused_text(kind: PromptKind) -> str:
    return (f"{WINDOWS[kind]}: paused while the factions are asked about Karama against the Bene Tleilaxu reveal; "
            "they are asked again once that is answered.")


def asked_again(before: GameState | None, after: GameState) -> dict[str, str]:
    """The decisions this action asked again: their choices changed while they were open (an offer made at the
    Nexus, a leader back for revival), engine/flow.py `ask_again`. The new decision's id -> the old one's."""
    if before is None:
        return {}
    closed = {(p.faction, p.kind): p.id for p in before.prompts
              if p.kind in ASKED_AGAIN_KINDS and after.prompt(p.id) is None}
    opened = {p.id for p in before.prompts}
    return {p.id: closed[(p.faction, p.kind)] for p in after.prompts
            if p.id not in opened and (p.faction, p.kind) in closed}


def _calls(before: GameState | None, after: GameState, dm_closed: Collection[str]) -> list[str]:
    """Each decision this action opened for a player the bot cannot DM, its decider called by name once (not again
    when it is asked again); a secret one says only that. A player the bot can DM is called by the card itself
    (Discord notifies a DM): a mention here too would be a second notification for one decision (issue 26 item 0),
    and the status board shows whom the table waits on."""
    already = {p.id for p in before.prompts} if before is not None else set()
    already |= asked_again(before, after).keys()
    calls = []
    for prompt in after.prompts:
        if prompt.id in already or prompt.faction.value not in dm_closed:
            continue
        what = "a secret decision" if prompt.secret else decision_name(prompt.kind)
        calls.append(f"{mention(prompt.faction.value)}: {what} (your DMs are closed to the bot: /me prompts shows "
                     "it).")
    return calls


# --- the status board ------------------------------------------------------------------------------------------


def cancellation_text(settings: dict[str, Any]) -> str | None:
    """Who cancelled the game and why (GameService.cancel), or None for a game not cancelled."""
    cancelled = GameSettings.of(settings).cancelled
    return f"Cancelled by {cancelled.by}: {cancelled.reason}." if cancelled else None


def status_board(state: GameState, due: Callable[[Prompt], datetime | None] | None = None, *,
                 cancelled: str | None = None, paused: bool = False,
                 away: Mapping[Faction, datetime] | None = None, vote: TableVote | None = None) -> OutgoingMessage:
    """The pinned status post, replaced after every action (`status_text`); a cancelled or paused game's says so."""
    return OutgoingMessage(recipient=Recipient(channel=True),
                           text=status_text(view(state, None), state, due, cancelled=cancelled, paused=paused,
                                            away=away, vote=vote),
                           edit_of=STATUS_KEY, replace=True)


def status_opening(state: GameState, due: Callable[[Prompt], datetime | None] | None = None) -> OutgoingMessage:
    """The status post as the game starts: pinned, and named so that every action replaces it."""
    return OutgoingMessage(recipient=Recipient(channel=True), text=status_text(view(state, None), state, due),
                           key=STATUS_KEY, pin=True)


def status_text(seen: PlayerView, state: GameState, due: Callable[[Prompt], datetime | None] | None = None, *,
                cancelled: str | None = None, paused: bool = False,
                away: Mapping[Faction, datetime] | None = None, vote: TableVote | None = None) -> str:
    """Where the game stands, from the table's view: turn, phase, storm, spice on the board, each faction's public
    facts, and whom the game waits for (and until when, once a deadline is set; a paused game's clocks stand
    still, so it shows none), or, once it was cancelled, the `cancelled` words (cancellation_text) instead; and the
    table's open `vote` (votes.board_line), paused or not: a vote may be what resumes the game."""
    phase = PHASE_TITLES.get(seen.phase, seen.phase.value.replace("_", " ").capitalize())
    data = load_game_data()
    lines = [f"**Status · turn {seen.turn} · {phase}** · storm in sector {seen.storm_sector} · "
             f"spice on the board: {sum(seen.spice_on_board.values())}"]
    on_board = seen.tokens_on_board()
    advisors = sum(seen.bg_advisors.values())
    for public in seen.factions:
        board = f"{on_board[public.faction]} on the board"
        if public.faction == Faction.BENE_GESSERIT and advisors:
            board += f" ({advisors} of them advisors)"
        tokens = [board, f"{public.reserves} in reserve",
                  f"{public.tanks} in the tanks"] if data.factions[public.faction].tokens_total else []  # BT-1
        facts = [*tokens, counted(public.hand_size, "card")]
        if public.bribes:
            facts.append(f"{public.bribes} bribe spice")
        if public.faction == Faction.BENE_TLEILAXU and seen.bt_open_spice:
            facts.append(f"{seen.bt_open_spice} spice in open view")
        lines.append(f"- {faction_name(public.faction)}: " + ", ".join(facts))
    if seen.winners:
        lines.append("The game is over: " + " and ".join(faction_name(f) for f in seen.winners) + " won.")
    elif cancelled:
        lines.append(f"**The game is over. {cancelled}**")
    elif seen.awaiting:
        waiting = []
        for awaited in seen.awaiting:
            prompt = state.prompt(awaited.prompt_id)
            when = due(prompt) if due is not None and prompt is not None else None
            what = "a secret decision" if awaited.secret else table_decision_name(awaited.kind)
            if awaited.faction in (away or {}):  # announced to the table (/me away): their clock may stand still
                what += f", away until {timestamp((away or {})[awaited.faction])}"
            waiting.append(f"{faction_name(awaited.faction)} ({what}" + (f", until {timestamp(when)}" if when else "")
                           + ")")
        lines.append("Waiting for: " + "; ".join(waiting) + ".")
    if paused and not (seen.winners or cancelled):
        lines.append(PAUSED_WORDS)
    if vote is not None and not (seen.winners or cancelled):
        lines.append(board_line(vote, (public.faction for public in seen.factions)))
    return "\n".join(lines)
