"""`python -m tests.playthrough --seed N [--turns T] [--factions ...]` (`make playthrough SEED=N`): a whole game
played in SimCord by random players who use only what the bot offers them, and a JSON summary of how it went.

The real MentatBot runs in SimCord (see tests/test_discord_e2e.py for what SimCord covers and how the outbox is
delivered by moving its virtual clock). A moderator, who holds no seat, opens the game with `/game new` (the
factions, every option, the seed), each player takes a seat with `/game join` and the moderator starts it.

Before the first decision each player sets their standing orders with `/me orders`, as a group would after
reading the welcome DM: traitor calls "always call when I can", then each busywork order the panel offers them:
storm cards "never", the Nexus "done at once" (no talk of alliances: those who keep being asked still talk, among
themselves), bids they cannot outbid with their own spice "pass for me" (A-6), revival "free tokens" (every faction
but the BT), the Guild's turn "in storm order", the Bene Gesserit's spiritual advisors "always to the Polar
Sink" and the Bene Tleilaxu's allies' free revival "always grant it" (BT-60). Each busywork order is drawn on its
own: with the odds ASK_ODDS a player keeps being asked for that one instead. Bidding orders they give from the bid
card itself, as it offers them.

From then on each player looks only at their own DMs: a decision card with enabled controls is answered at
random among what it offers (a button; in menus a random option in each, now and then turning a long menu's
page, then Submit; an amount in the range its label writes; a button beside the menus, such as "Ship nothing, move
nothing this turn", counts as one more choice of the first part, asked or not). Several players may hold open
cards at once: the one who acts is drawn among them. The players never ask the engine anything (no legal choices,
no samplers): what they may do is what the controls show. When no player has a control left and the game is not
over, the game waits on a decision nobody can answer by a control: the moderator reads `/game status` and forces
the first decision it lists with `/admin force`, which counts as an admin intervention (by kind of decision).

The summary, the last line of stdout, counts what the table did (see Summary); progress goes to stderr, with
the first refusals of something the bot offered, quoted, so that they can be fixed. The same seed plays the same
game: the players draw from a Random seeded with it, and SimCord's clock is virtual.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from itertools import islice
from typing import Any

import discord
import pytest
from simcord.env import Env
from simcord.results import to_discord_message
from simcord.types import HttpLogEntry

from bot.app.anytime_words import value_label
from bot.app.decision_cards import ATTACK_TITLES, CARD_HEADING
from bot.app.service import GameService
from bot.discord.client import MentatBot
from bot.store.memory import MemoryGameStore
from engine.events import BY_STANDING_ORDER
from engine.ids import Faction
from engine.model import PromptKind
from engine.names import DECISION_NAMES, faction_name
from engine.rules.anytime import (
    DONE_AT_ONCE,
    FREE_TOKENS,
    GRANT,
    NEVER,
    PASS_WHEN_OUTBID,
    STORM_ORDER,
    TO_POLAR_SINK,
    YES,
    AnytimeKind,
)
from tests.discord_model import DiscordModel, InteractionTokens, ThreadArchiving, Transport, route_of

SETTLE_POLL = 0.002  # seconds between SimCord's looks whether the bot is done (QuickEnv)
WAKE = 0.001  # seconds of simulated time that let a woken drain deliver (tests/test_discord_e2e.py)
MAX_INTERACTIONS = 20_000  # a cap: a game that has not ended by then is reported unfinished
MAX_TRIES = 5  # refusals of one card after which its player leaves it to the moderator
MAX_FORM_STEPS = 200  # choices and page or window turns in one form before its player gives up on it
PAGE_TURN_ODDS = 0.25  # how often a player turns a long menu's page instead of choosing on the page shown
MAX_PAGE_TURNS = 4  # page turns in one menu before its player chooses on the page shown
BACK_ODDS = 0.25  # how often a player goes back to the parts of a long form already chosen before Submit
REFUSALS_QUOTED = 10  # refusals printed to stderr (and kept in the summary) with their text
PROGRESS_EVERY = 250  # interactions between two progress lines on stderr
LATENCY = 0.1  # seconds a request takes through the Discord model (--model)
MODEL_ANSWER_TIME = 3.0  # with --model, virtual seconds after each interaction: Discord waits 3 s for an answer
DELIVERY_STEP = 1.0  # seconds of virtual time between two looks whether the outbox is delivered (--model)
MODEL_SETTLE_TIMEOUT = 300.0  # wall seconds SimCord may take to settle one step of the clock (--model)

TURN_POST = re.compile(r"^\*\*Turn (\d+) · Storm\.\*\*", re.MULTILINE)
GAME_OVER = re.compile(r"^The game ends on turn (\d+)\. (?:Winners: (.+?)|No winner): ", re.MULTILINE)
AWAITED = re.compile(r"^- (?P<faction>.+?): (?P<kind>.+?)(?: \(secret\))?, decision (?P<prompt>p\d+)$", re.MULTILINE)
AMOUNT_RANGE = re.compile(r"\((-?\d+) to (-?\d+)\)")
CLOSING_LINE = re.compile(r"\n\*\*(You answered|Forced by the moderator|The deadline passed|Closed"
                          r"|Your choices changed|Paused)[^\n]*\*\*$")
ASKED_AGAIN = re.compile(r"this decision is asked again,? in a new card", re.IGNORECASE)  # render.closing_messages
CARD_TITLE = re.compile(re.escape(CARD_HEADING) + r"(.+?)\*\*")
KINDS_BY_NAME = {name: kind.value for kind, name in DECISION_NAMES.items()} | {
    title: PromptKind.BATTLE_PLAN.value for title in ATTACK_TITLES.values()}
FACTIONS_BY_NAME = {faction_name(f): f.value for f in Faction}
REFUSAL_PREFIXES = ("Refused", "Not yet")
CLOSED_REPLY = "That decision is already closed."
MORE, BACK, SUBMIT = "More choices ▶", "◀ Back", "Submit"
BUTTON, STRING_SELECT, TEXT_INPUT = (discord.ComponentType.button.value, discord.ComponentType.select.value,
                                     discord.ComponentType.text_input.value)
INTERACTION_KINDS = ("click", "select", "modal", "slash", "autocomplete")
PAGE_TURNS = ("earlier:", "later:")  # the values of a long menu's page-turning entries (bot/discord/components.py)
ASK_ODDS = 0.15  # how often a player keeps being asked for a busywork decision instead of setting its order
ORDERS_MENU = "Choose what to do…"  # the placeholder of the menu of /me orders (bot/discord/anytime_panel.py)
BACK_TO_LIST = "◀ All you may do now"
# The standing orders the players set at the start: the kind, and the button that sets it in its form.
TRAITOR_ALWAYS = (AnytimeKind.TRAITOR_ORDER, value_label(AnytimeKind.TRAITOR_ORDER, "auto", YES))
BUSYWORK_ORDERS = [(kind, value_label(kind, part, value)) for kind, part, value in (
    (AnytimeKind.STORM_CARD_ORDER, "storm", NEVER),
    (AnytimeKind.NEXUS_ORDER, "nexus", DONE_AT_ONCE),
    (AnytimeKind.OUTBID_ORDER, "outbid", PASS_WHEN_OUTBID),
    (AnytimeKind.REVIVAL_ORDER, "revival", FREE_TOKENS),
    (AnytimeKind.GUILD_TIMING_ORDER, "timing", STORM_ORDER),
    (AnytimeKind.ADVISOR_ORDER, "advisor", TO_POLAR_SINK),
    (AnytimeKind.ALLY_REVIVAL_ORDER, "ally_revival", GRANT),
)]


@dataclass
class Summary:
    """What the playthrough prints as JSON. Add a field here and it is in the output."""

    seed: int
    factions: list[str]
    options: str
    finished: bool = False
    stopped: str = ""  # why the run stopped: "game over", "interaction cap", "stuck: ..."
    turns: int = 0  # the last turn begun, by the channel's "Turn N: Storm." posts
    winner: list[str] | None = None  # the factions the end-of-game post names ([]: no winner; None: no such post)
    interactions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(INTERACTION_KINDS, 0))  # all
    interactions_by_decision: dict[str, int] = field(default_factory=dict)  # those that answered a card, by kind
    moderator_interactions: int = 0
    admin_interventions: int = 0
    admin_interventions_by_kind: dict[str, int] = field(default_factory=dict)
    offered_choice_refused: int = 0  # "Refused..." or "Not yet..." in answer to a control the bot offered
    offered_choice_refused_by_kind: dict[str, int] = field(default_factory=dict)
    first_refusals: list[str] = field(default_factory=list)
    closed_replies: int = 0  # "already closed" in answer to a control that was still enabled
    cards_given_up: int = 0  # cards refused MAX_TRIES times (or forms never done), left to the moderator
    typed_values: int = 0  # values a player had to type with no menu: a modal's input that writes no range
    modal_values: int = 0  # numbers typed into a modal that writes their range
    cards_answered: int = 0
    standing_orders_set: int = 0  # orders the players set with /me orders at the start
    # decisions an order answered: the lines saying so in the players' DMs (one DM a turn that grows; a line
    # repeated at once, such as a second pass on the same card, shows once)
    standing_order_answers: int = 0
    mentions: int = 0  # players called by name (pinged) in the channel and its threads, reminders included
    mentions_by_faction: dict[str, int] = field(default_factory=dict)  # calls as a decision opens, by faction
    # decisions opened for each player: the cards they were sent, less those that only ask a decision again (a
    # card closed "asked again in a new card" is followed by its new card; one asked again in place is no new DM)
    cards_by_faction: dict[str, int] = field(default_factory=dict)
    mention_faults: list[str] = field(default_factory=list)  # a post allowed to ping more than it called; a player
    # pinged a different number of times than decisions were opened for them (expected: none)
    reminders: int = 0  # the posts reminding an awaited player ("Reminder", "Last call"): the players answer
    # within minutes of the virtual clock, so no deadline comes near (tests/test_discord_e2e_lobby.py has them)
    answered_cards_left_open: int = 0  # answered cards whose controls were not disabled by the end
    cards_in_channel: int = 0  # channel messages with controls or a card's heading (never expected)
    channel_posts: int = 0  # the bot's posts in the channel (answers to commands left out)
    thread_posts: int = 0  # the bot's posts in the turns' threads (issue 26: calls no longer fill them)
    channel_posts_per_turn: dict[str, int] = field(default_factory=dict)  # "0" is before turn 1's storm
    dms: int = 0  # the bot's DMs to the players (answers to clicks left out)
    # the bot's REST requests to Discord, as SimCord logged them (see count_requests): in all, per interaction and
    # per turn (mean, max), and by route
    requests: dict[str, Any] = field(default_factory=dict)
    # with --model only (the game played through tests/discord_model.py): what Discord's limits did to it
    model: dict[str, Any] = field(default_factory=dict)
    bot_errors: int = 0  # exceptions the bot raised, as SimCord recorded them
    first_bot_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0  # wall time
    cpu_seconds: float = 0.0  # the process's CPU time (the map drawing's threads included)

    def count(self, tally: dict[str, int], key: str) -> None:
        tally[key] = tally.get(key, 0) + 1

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- what a member sees ----------------------------------------------------------------------------------


class Screen:
    """One channel as a member sees it, read as it changes: the messages that arrived since the last look,
    and which messages still carry an enabled control.

    It reads SimCord's store of the channel's messages (what Discord holds) instead of `history()`, which
    builds every message of the channel anew at each look: over a whole game that was most of the run's
    time. A message is turned into a discord.Message only when the member acts on it."""

    def __init__(self, env, channel_id: int, viewer_id: int):
        self.env, self.channel_id, self.viewer_id = env, channel_id, viewer_id
        self.read = 0  # messages looked at so far
        self.live: set[int] = set()  # messages seen with an enabled control

    def _stored(self) -> dict[int, Any]:
        return self.env.backend.messages.get(self.channel_id, {})

    def arrived(self) -> list[str]:
        """The texts of the messages that arrived since the last look (as they read now)."""
        stored = self._stored()
        new = [m for m in islice(stored.values(), self.read, None) if m.visible_to(self.viewer_id)]
        self.read = len(stored)
        self.live.update(m.id for m in new if _enabled_in(m.components))
        return [m.content for m in new]

    def with_controls(self) -> list[int]:
        """The messages that carry an enabled control now."""
        self.arrived()
        stored = self._stored()
        self.live = {i for i in self.live if i in stored and _enabled_in(stored[i].components)}
        return sorted(self.live)

    def message(self, message_id: int) -> discord.Message:
        return to_discord_message(self.env, self.env.backend.get_message(self.channel_id, message_id))

    def heading_of(self, message_id: int) -> str:
        """The card heading a message carries or, for the last part of a card too long for one message (the
        part with the controls), the heading of its first part."""
        stored = self._stored()
        for earlier in sorted((i for i in stored if i <= message_id), reverse=True):
            if CARD_HEADING in stored[earlier].content:
                return stored[earlier].content
        return ""


def _leaves(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The components of a message's or a modal's rows (in a modal, a label wraps one)."""
    return [item for row in rows for item in row.get("components", [row.get("component", row)])]


def _enabled_in(rows: list[dict[str, Any]]) -> bool:
    return any(not c.get("disabled") for c in _leaves(rows) if c.get("type") in (BUTTON, STRING_SELECT))


def controls(message: discord.Message) -> list[Any]:
    return [item for row in message.components for item in getattr(row, "children", [row])]


def enabled(message: discord.Message) -> list[Any]:
    return [c for c in controls(message) if not getattr(c, "disabled", False)]


def is_select(control: Any) -> bool:
    return isinstance(control, discord.SelectMenu)


def reply_text(result: Any) -> str:
    """What the bot answered the member (a deferred answer's last follow-up, or its reply); '' when the answer
    was an edit of the card (a menu choice)."""
    if result.followups:
        return result.followups[-1].content
    response = result.response
    if response is not None and (result.ephemeral or response.message.interaction_metadata is not None):
        return response.content
    return ""


def _shown(result: Any) -> discord.Message:
    """The message an interaction answered with (a deferred answer's follow-up) or edited, as it reads now."""
    return (result.followups[-1] if result.followups else result.response).message


def bot_posts(channel, bot_id: int) -> list[discord.Message]:
    """The messages the bot posted or sent on its own (the outbox), not its answers to commands or clicks."""
    return [m for m in channel.history() if m.author.id == bot_id and m.interaction_metadata is None
            and not m.flags.ephemeral and m.type == discord.MessageType.default]  # not Discord's own notices


def kind_of(heading: str) -> str:
    """The kind of decision a card asks, from its heading as the player reads it ("unknown" without one)."""
    found = CARD_TITLE.search(heading)
    return KINDS_BY_NAME.get(found.group(1), "unknown") if found else "unknown"


# --- the table -------------------------------------------------------------------------------------------


@dataclass
class Table:
    env: Any
    channel: Any
    moderator: Any
    players: dict[Faction, Any]
    summary: Summary
    rng: random.Random
    screens: dict[Faction, Screen] = field(default_factory=dict)  # each player's DMs
    news: Screen | None = None  # the channel, as anybody sees it
    turn: int = 0  # the last turn the channel announced
    ended: bool = False  # the channel announced the end of the game
    tries: Counter = field(default_factory=Counter)  # refusals per card (message id)
    given_up: set[int] = field(default_factory=set)
    answered: set[int] = field(default_factory=set)  # the cards answered ("Done"), by message id
    answering: str | None = None  # the kind of decision whose card is being answered
    # where each interaction began in SimCord's log of the bot's requests, and its kind
    interaction_starts: list[tuple[int, str]] = field(default_factory=list)
    # the virtual time let pass after each interaction: the wake of its delivery, or, with the Discord model's
    # latency, also the time the bot's answer takes to come back (tests/discord_model.py Transport)
    answer_time: float = WAKE
    last_interaction_at: float = 0.0  # when the last interaction began, on SimCord's virtual clock (seconds)
    model: Any = None  # tests/discord_model.py DiscordModel, with --model
    gap: float = 0.0  # virtual seconds let pass after each answer (with --model), its delivery included
    results: list[Any] = field(default_factory=list)  # SimCord's result of each interaction (read live)
    guild: Any = None  # the server the game is played in (for a member who joins later)

    def __post_init__(self) -> None:
        self.screens = {f: Screen(self.env, m.user.dm_channel.id, m.id) for f, m in self.players.items()}
        self.news = Screen(self.env, self.channel.id, None)

    @property
    def interaction_count(self) -> int:
        return sum(self.summary.interactions.values())

    def look(self) -> None:
        """Read the channel's new posts: the turn announced, the end of the game."""
        for text in self.news.arrived():
            self.turn = max([self.turn, *(int(n) for n in TURN_POST.findall(text))])
            self.ended = self.ended or GAME_OVER.search(text) is not None

    def over(self, max_interactions: int) -> bool:
        """Read the channel; True once the game ended (finished) or the interaction cap is reached."""
        self.look()
        if self.ended:
            self.summary.finished, self.summary.stopped = True, "game over"
        elif self.interaction_count >= max_interactions:
            self.summary.stopped = "interaction cap"
        return self.ended or self.interaction_count >= max_interactions

    async def interact(self, kind: str, act, *, by_moderator: bool = False):
        """One interaction of `kind`, then the delivery it woke; returns SimCord's result."""
        self.summary.interactions[kind] += 1
        self.interaction_starts.append((len(self.env.backend.http_requests), kind))
        self.last_interaction_at = self.env.backend.clock.elapsed
        self.summary.moderator_interactions += by_moderator
        if self.answering is not None:
            self.summary.count(self.summary.interactions_by_decision, self.answering)
        result = await act
        self.results.append(result)
        await self.env.advance_time(self.answer_time)
        return result

    async def pending_delivery(self) -> bool:
        return bool(await self.env.bot.service.store.pending_outbox(limit=1))

    async def let_time_pass(self) -> None:
        """The gap between two answers: the clock runs until the outbox is delivered (each request taking its
        time), then the rest of the gap passes in one step (tests/discord_model.py pass_quiet_time), and what
        the drain that follows sends (reminders, defaults) is delivered too."""
        began = self.env.backend.clock.elapsed
        while await self.pending_delivery() and self.env.backend.clock.elapsed - began < self.gap:
            await self.env.advance_time(DELIVERY_STEP)
        rest = self.gap - (self.env.backend.clock.elapsed - began)
        if rest > 0:
            await self.model.pass_quiet_time(rest)
        while await self.pending_delivery() and self.env.backend.clock.elapsed - began < 2 * self.gap:
            await self.env.advance_time(DELIVERY_STEP)

    async def slash(self, member, name: str, **options):
        return await self.interact("slash", member.slash(self.channel, name, **options),
                                   by_moderator=member is self.moderator)

    # --- the players ---------------------------------------------------------------------------------

    def open_cards(self, faction: Faction) -> list[int]:
        """The player's decision cards with an enabled control (not the welcome DM's any-time panel button),
        except cards they gave up on."""
        screen = self.screens[faction]
        return [i for i in screen.with_controls() if i not in self.given_up and screen.heading_of(i)]

    def heard(self, faction: Faction, card: discord.Message, control: Any, text: str) -> bool:
        """Read the bot's answer to a control it offered; False when it refused."""
        member, kind = self.players[faction], kind_of(self.screens[faction].heading_of(card.id))
        if text.startswith(REFUSAL_PREFIXES):
            self.summary.offered_choice_refused += 1
            self.summary.count(self.summary.offered_choice_refused_by_kind, kind)
            self.tries[card.id] += 1
            if len(self.summary.first_refusals) < REFUSALS_QUOTED:
                quoted = f"{member.name} ({kind}) pressed {control.label or control.placeholder!r}: {text}"
                self.summary.first_refusals.append(quoted)
                log(f"refused: {quoted}")
            if self.tries[card.id] >= MAX_TRIES:
                self.given_up.add(card.id)
                self.summary.cards_given_up += 1
            return False
        if text == CLOSED_REPLY:
            self.summary.closed_replies += 1
            self.given_up.add(card.id)
            return False
        if text.startswith("Done"):
            self.summary.cards_answered += 1
            self.answered.add(card.id)
        return True

    async def answer_card(self, faction: Faction, card_id: int) -> None:
        member, card = self.players[faction], self.screens[faction].message(card_id)
        offered = enabled(card)
        self.answering = kind_of(self.screens[faction].heading_of(card_id))
        try:
            if any(is_select(c) for c in offered):
                await self.fill_form(faction, card)
                return
            button = self.rng.choice(offered)  # buttons: one click answers (or opens a modal)
            self.heard(faction, card, button, reply_text(await self.press(member, card, button)))
        finally:
            self.answering = None

    async def press(self, member, card: discord.Message, button: Any) -> Any:
        """Click; a modal the click opens is filled and submitted. SimCord's result of the last step."""
        shown = await self.interact("click", member.user.click(card, custom_id=button.custom_id))
        return await self.fill_modal(member, shown, button.label) if shown.modal is not None else shown

    async def fill_modal(self, member, shown: Any, button_label: str) -> Any:
        """A modal's text inputs: a random number in the range each writes (its label, or the button's: "Other
        amount (0 to 12)"). An input that writes no range would be a value typed with no menu: counted, and
        answered with 0."""
        typed = {}
        for control in _leaves(shown.modal.get("components", [])):
            if control.get("type") != TEXT_INPUT:
                continue
            written = AMOUNT_RANGE.search(control.get("label", "")) or AMOUNT_RANGE.search(button_label)
            if written is None:
                self.summary.typed_values += 1
                typed[control["custom_id"]] = "0"
                continue
            self.summary.modal_values += 1
            low, high = map(int, written.groups())
            typed[control["custom_id"]] = str(self.rng.randint(low, high))
        return await self.interact("modal", member.user.submit_modal(shown, typed))

    async def fill_form(self, faction: Faction, card: discord.Message) -> None:
        """Menus: a random option in every part, window after window (turning pages now and then), then Submit.
        The card is read again after each choice: a choice edits it, and may change the parts after it."""
        member = self.players[faction]
        chosen: set[int] = set()  # the parts chosen (custom ids change with every choice: by number)
        more_from: set[int] = set()  # the last part shown when "More choices" was pressed
        page_turns: Counter = Counter()
        went_back = False
        for step in range(MAX_FORM_STEPS):
            card = self.screens[faction].message(card.id)
            menus = {int(c.custom_id.rsplit(":", 1)[1]): c for c in enabled(card) if is_select(c)}
            buttons = {c.label: c for c in enabled(card) if not is_select(c)}
            last = max(menus, default=-1)
            todo = [part for part in sorted(menus) if part not in chosen]
            beside = [c for label, c in buttons.items() if label not in (MORE, BACK, SUBMIT)]
            first_part = next((c for c in controls(card) if is_select(c)), None)  # shown, if not asked
            if step == 0 and beside and first_part is not None and self.took_beside(first_part, beside):
                button = self.rng.choice(beside)
                self.heard(faction, card, button, reply_text(await self.press(member, card, button)))
                return
            if todo:
                part = todo[0]
                menu = menus[part]
                turns = [o for o in menu.options if o.value.startswith(PAGE_TURNS)]
                choices = [o for o in menu.options if not o.value.startswith(PAGE_TURNS)]
                turning = bool(turns) and (not choices or (page_turns[part] < MAX_PAGE_TURNS
                                                           and self.rng.random() < PAGE_TURN_ODDS))
                if turning:
                    picked = [self.rng.choice(turns)]
                else:  # as many as the menu asks for (one, in every menu so far)
                    high = min(menu.max_values, len(choices))
                    picked = self.rng.sample(choices, self.rng.randint(min(menu.min_values, high), high))
                page_turns[part] += turning
                result = await self.interact("select", member.user.select(card, [o.value for o in picked],
                                                                          custom_id=menu.custom_id))
                if not turning:
                    chosen.add(part)
                text = reply_text(result)
                if text and not self.heard(faction, card, menu, text):
                    return
            elif MORE in buttons and last not in more_from:  # the parts after these
                more_from.add(last)
                await self.interact("click", member.user.click(card, custom_id=buttons[MORE].custom_id))
            elif BACK in buttons and not went_back and self.rng.random() < BACK_ODDS:  # a look at earlier parts
                went_back = True
                await self.interact("click", member.user.click(card, custom_id=buttons[BACK].custom_id))
            elif buttons:
                submit = buttons.get(SUBMIT) or self.rng.choice(list(buttons.values()))
                self.heard(faction, card, submit, reply_text(await self.press(member, card, submit)))
                return
            else:
                break
        log(f"{member.name} could not finish a form ({kind_of(self.screens[faction].heading_of(card.id))}): "
            "left to the moderator")
        self.given_up.add(card.id)
        self.summary.cards_given_up += 1

    def took_beside(self, first_menu: Any, beside: list[Any]) -> bool:
        """Whether the player answers with a button beside the menus: one more choice of the first part (shown
        disabled when it offers one choice: "Ship nothing" then weighs as much as shipping from the reserves)."""
        offered = [o for o in first_menu.options if not o.value.startswith(PAGE_TURNS)]
        return self.rng.randrange(len(offered) + len(beside)) < len(beside)

    # --- standing orders ---------------------------------------------------------------------------------

    async def set_standing_orders(self, faction: Faction) -> None:
        """`/me orders`, then each order chosen in its menu, when the menu offers it, and set by its button (the
        panel then lists what may be done now again; after a refusal, back to the list). Each busywork order is
        drawn whether the panel offers it or not (ASK_ODDS), so that the draws do not depend on what the player
        reads."""
        member = self.players[faction]
        wanted = [TRAITOR_ALWAYS] + [order for order in BUSYWORK_ORDERS if self.rng.random() >= ASK_ODDS]
        panel = _shown(await self.slash(member, "me orders"))
        for kind, label in wanted:
            if BACK_TO_LIST in [c.label for c in enabled(panel) if not is_select(c)]:  # the last order's form
                panel = _shown(await self.interact("click", member.click(panel, label=BACK_TO_LIST)))
            [menu] = [c for c in enabled(panel) if is_select(c) and c.placeholder == ORDERS_MENU]
            if kind.value not in [o.value for o in menu.options]:
                continue  # not this faction's order, or not in this game (the BT revive nothing)
            panel = _shown(await self.interact("select", member.select(panel, [kind.value], custom_id=menu.custom_id)))
            done = await self.interact("click", member.click(panel, label=label))
            if reply_text(done).startswith("Done"):
                self.summary.standing_orders_set += 1
                panel = _shown(done)  # the panel lists what may be done now again
            else:
                log(f"{member.name} could not set {kind.value}: {reply_text(done)}")

    # --- the moderator -------------------------------------------------------------------------------

    async def force_one(self) -> bool:
        """No player has a control to press: force the first decision /game status lists that the moderator
        can force. False when there is none."""
        status = reply_text(await self.slash(self.moderator, "game status"))
        for found in AWAITED.finditer(status):
            forced = await self.slash(self.moderator, "admin force", prompt=found["prompt"],
                                      reason="no control offers this decision")
            if reply_text(forced).startswith(f"Decision {found['prompt']} forced"):
                self.summary.admin_interventions += 1
                self.summary.count(self.summary.admin_interventions_by_kind, found["kind"].replace(" ", "_"))
                return True
            log(f"force refused: {found['prompt']} ({found['kind']}): {reply_text(forced)}")
        self.summary.stopped = f"stuck: nothing to force ({status.splitlines()[-1] if status else 'no status'})"
        return False


async def seat_the_table(env, factions: list[Faction], seed: int, options: str, summary: Summary,
                         pace: str | None = None, answer_time: float = WAKE, before_start=None) -> Table:
    """The moderator opens the game (at the bot's default pace unless given one), each player takes a seat, the
    moderator starts it (`before_start(table)`, if given, is awaited just before)."""
    await env.bot.tree.sync()
    guild = env.create_guild()
    channel = guild.create_text_channel("dune")
    moderators = guild.create_role("moderators", permissions=discord.Permissions(manage_guild=True))
    moderator = guild.add_member(env.create_user("moderator"), roles=[moderators])
    players = {f: guild.add_member(env.create_user(f"{f.value}-player")) for f in factions}
    table = Table(env, channel, moderator, players, summary, random.Random(seed), answer_time=answer_time,
                  guild=guild)
    paced = {"pace": pace} if pace is not None else {}
    log(reply_text(await table.slash(moderator, "game new", factions=", ".join(f.value for f in factions),
                                     options=options, seed=seed, **paced)))
    for faction, member in players.items():
        await table.slash(member, "game join", faction=faction.value)
    if before_start is not None:
        await before_start(table)
    log(reply_text(await table.slash(moderator, "game start")))
    return table


async def play(table: Table, max_interactions: int) -> None:
    progress = 0
    while not table.over(max_interactions):
        if table.interaction_count >= progress + PROGRESS_EVERY:
            progress = table.interaction_count
            log(f"{progress} interactions, turn {table.turn}, {table.summary.admin_interventions} forced, "
                f"{table.summary.offered_choice_refused} refused")
        holding = {f: cards for f in table.players if (cards := table.open_cards(f))}
        if holding:
            faction = table.rng.choice(sorted(holding))
            await table.answer_card(faction, table.rng.choice(holding[faction]))
        elif not await table.force_one():
            return
        if table.gap:
            await table.let_time_pass()


def tally(table: Table) -> None:
    """The end of the run: turns, winner, posts (by turn) and DMs, cards left open, the bot's errors."""
    s, env = table.summary, table.env
    bot_id = env.bot.user.id
    posts = bot_posts(table.channel, bot_id)
    s.channel_posts = len(posts)
    turn = 0
    per_turn: Counter = Counter()
    for post in posts:
        turn = max([turn, *(int(n) for n in TURN_POST.findall(post.content))])
        per_turn[str(turn)] += 1
    s.turns, s.channel_posts_per_turn = turn, dict(per_turn)
    over = GAME_OVER.search("\n".join(p.content for p in posts))
    if over:
        named = over.group(2).split(" and ") if over.group(2) else []
        s.winner = [FACTIONS_BY_NAME.get(name.strip(), name.strip()) for name in named]
    s.cards_in_channel = sum(1 for m in table.channel.history() if m.components or CARD_HEADING in m.content)
    for faction, member in table.players.items():
        dms = bot_posts(member.user.dm_channel, bot_id)
        s.cards_by_faction[faction.value] = sum(CARD_HEADING in m.content for m in dms) - sum(
            bool(ASKED_AGAIN.search(m.content)) for m in dms)
        s.dms += len(dms)
        s.answered_cards_left_open += sum(1 for m in dms if m.id in table.answered
                                          and (enabled(m) or not CLOSING_LINE.search(m.content)))
        s.standing_order_answers += sum(line.startswith(BY_STANDING_ORDER) for m in dms
                                        for line in m.content.splitlines())
    tally_mentions(table)
    s.requests = count_requests(env.backend.http_requests, table.interaction_starts)
    s.bot_errors = len(env.errors)
    s.first_bot_errors = [f"{type(e).__name__}: {e}"[:300] for e in env.errors[:5]]


def count_requests(requests: list[HttpLogEntry], interaction_starts: list[tuple[int, str]]) -> dict[str, Any]:
    """The bot's REST requests: in all; per interaction, from its start to the next one's (its answer and the
    delivery it woke), mean and max, in all and by kind; per turn, from the request that posts the turn's first
    line ("Turn N · Storm.") to the next turn's, mean and max over turns 1 on (turn 0, the lobby and the setup,
    apart); and by route (method and path, ids in braces), most used first."""
    ends = [start for start, _ in interaction_starts[1:]] + [len(requests)]
    per_interaction = [end - start for (start, _), end in zip(interaction_starts, ends, strict=True)]
    by_kind: dict[str, list[int]] = {}
    for (_, kind), made in zip(interaction_starts, per_interaction, strict=True):
        by_kind.setdefault(kind, []).append(made)
    per_turn: Counter = Counter()
    turn = 0
    for request in requests:
        content = request.json.get("content") if isinstance(request.json, dict) else None
        if content:
            turn = max([turn, *(int(n) for n in TURN_POST.findall(content))])
        per_turn[turn] += 1
    turns = [per_turn[t] for t in sorted(per_turn) if t >= 1]
    routes = Counter(route_of(request.method, request.path) for request in requests)
    return {
        "total": len(requests),
        "per_interaction": _mean_max(per_interaction),
        "per_interaction_by_kind": {kind: _mean_max(made) for kind, made in by_kind.items()},
        "per_turn": _mean_max(turns),
        "turn_0": per_turn[0],
        "by_turn": {str(t): n for t, n in sorted(per_turn.items())},
        "by_route": dict(routes.most_common()),
    }


def _mean_max(counts: list[int]) -> dict[str, float]:
    return {"mean": round(sum(counts) / len(counts), 1) if counts else 0.0, "max": max(counts, default=0),
            "n": len(counts)}


def tally_mentions(table: Table) -> None:
    """Who the posts of the channel and its threads pinged, as Discord stored them: each post may ping exactly
    the players it calls (no one else, no role, no @everyone), and no player the bot can DM is called there for a
    decision: the DM card is the call (issue 26 item 0; reminders aside)."""
    s, backend, bot_id = table.summary, table.env.backend, table.env.bot.user.id
    places = [table.channel.id, *(thread.id for thread in table.channel.threads)]
    factions = {member.id: faction.value for faction, member in table.players.items()}
    posts = [m for place in places for m in backend.messages.get(place, {}).values()
             if m.author_id == bot_id and m.type == discord.MessageType.default.value]  # not Discord's own notices
    threads = {thread.id for thread in table.channel.threads}
    s.thread_posts = sum(post.channel_id in threads for post in posts)
    for post in posts:
        allowed = post.allowed_mentions
        reminding = post.content.startswith(("Reminder", "Last call"))
        s.reminders += reminding
        for user in post.ping_user_ids:  # Discord pings a user once a post: a post may call them for two decisions
            calls = post.content.count(f"<@{user}>")
            s.mentions += calls
            if not reminding:
                s.mentions_by_faction[factions.get(user, str(user))] = \
                    s.mentions_by_faction.get(factions.get(user, str(user)), 0) + calls
        if allowed.everyone or post.mention_everyone or allowed.roles is None or allowed.roles or \
                allowed.users is None or allowed.users != frozenset(post.ping_user_ids):
            s.mention_faults.append(f"post {post.id} may ping more than it calls: {post.content[:80]!r}")
    for faction in table.players:
        if called := s.mentions_by_faction.get(faction.value, 0):
            s.mention_faults.append(f"{faction.value}: called {called} times in the channel, though the bot DMs "
                                    "them their decision cards")


class QuickEnv(Env):
    """SimCord's environment, looking every SETTLE_POLL seconds whether the bot's work has settled instead of
    every 50 ms: the drain loop that each interaction wakes kept every interaction waiting that long on the
    wall clock (most of a game's time). The virtual clock, and so the game, do not depend on it."""

    async def _settle_internal(self, *, idle: float = SETTLE_POLL, **options: Any) -> None:
        await super()._settle_internal(idle=min(idle, SETTLE_POLL), **options)


async def playthrough(seed: int = 1, turns: int | None = None, factions: list[Faction] | None = None,
                      max_interactions: int = MAX_INTERACTIONS, model: bool = False,
                      gap: float = 20 * 60.0) -> Summary:
    """Play a whole game (every option on; `turns` shortens it) and return its summary. With `model`, through
    the Discord model (see ModelGame)."""
    factions = factions or list(Faction)
    options = "all" + (f", turns={turns}" if turns else "")
    summary = Summary(seed=seed, factions=[f.value for f in factions], options=options)
    started, cpu = time.perf_counter(), time.process_time()
    # SimCord's clock drives discord.utils.utcnow: the service and the store read it (tests/test_discord_e2e.py)
    bot = MentatBot(GameService(MemoryGameStore(clock=discord.utils.utcnow), clock=discord.utils.utcnow),
                    **({"drain_interval": ModelGame.drain_interval} if model else {}))
    # the bot's errors are counted in the summary instead; a step of the model's clock may carry a long gap's
    # drains, which take longer on the wall clock than SimCord's 5 s
    env = QuickEnv(bot, check_errors=False, **({"settle_timeout": MODEL_SETTLE_TIMEOUT} if model else {}))
    await env.start()
    try:
        with env.time_context(), pytest.MonkeyPatch.context() as patcher:
            modelled = ModelGame(env, patcher, gap) if model else None
            table = await seat_the_table(env, factions, seed, options, summary,
                                         pace=modelled.pace if modelled else None,
                                         answer_time=modelled.answer_time if modelled else WAKE)
            if modelled is not None:
                table.model, table.gap = modelled.model, modelled.gap
            for faction in factions:
                await table.set_standing_orders(faction)
            await play(table, max_interactions)
            tally(table)
            if modelled is not None:
                summary.model = modelled.figures(table)
    finally:
        await env.shutdown()
    summary.seconds = round(time.perf_counter() - started, 1)
    summary.cpu_seconds = round(time.process_time() - cpu, 1)
    return summary


class ModelGame:
    """The game played through the Discord model (tests/discord_model.py): each request takes LATENCY seconds,
    Discord's rate limits, interaction tokens that expire after 15 minutes, threads that archive. The game is
    at the `weekly` pace and `gap` seconds of virtual time (20 minutes unless told) pass after each answer, its
    delivery included, as a group playing by post over days would leave them.

    Counted (Summary.model): lines lost (outbox rows the bot gave up on: marked undeliverable), interactions left
    unanswered (SimCord's record of each: never acknowledged), interaction tokens used after 15 minutes, the
    requests a rule of the model refused (by JSON error code), the 429s, and the virtual days the game took."""

    pace = "weekly"
    answer_time = MODEL_ANSWER_TIME
    # The bot's steady drain comes every 60 s here, not every 3 s (DRAIN_INTERVAL): each action still wakes a
    # drain at once, and the steady ones only run the deadlines (hours long) and retry a failed delivery; at 3 s,
    # the game's ten or so virtual days would take 300,000 drains, most of the run.
    drain_interval = 60.0

    def __init__(self, env: Any, patcher: Any, gap: float):
        self.env, self.gap = env, gap
        self.tokens, self.transport = InteractionTokens(), Transport(latency=LATENCY)
        self.model = DiscordModel(env, ThreadArchiving(), self.tokens, transport=self.transport).install(patcher)
        self.began = env.backend.clock.elapsed
        self.undeliverable: list[str] = []
        store = env.bot.service.store
        marked = store.mark_outbox

        async def mark_outbox(outbox_id: int, status: str, ref: str | None = None) -> None:
            if status == "undeliverable":
                self.undeliverable.append(str(outbox_id))
            await marked(outbox_id, status, ref)

        patcher.setattr(store, "mark_outbox", mark_outbox)

    def figures(self, table: Table) -> dict[str, Any]:
        refused = Counter(str(code) for _, code in self.model.refusals)
        return {"lost_lines": len(set(self.undeliverable)),
                "unanswered_interactions": sum(not result.acknowledged for result in table.results),
                "tokens_used_late": len(self.tokens.late),
                "refused_by_the_model": dict(refused),
                "rate_limited": len(self.transport.refused),
                "requests_served": len(self.transport.served),
                "virtual_days": round((self.env.backend.clock.elapsed - self.began) / 86400, 1),
                "pace": self.pace, "gap_seconds": self.gap, "latency_seconds": LATENCY}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.playthrough", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the game's seed and the players' (default 1)")
    parser.add_argument("--turns", type=int, default=None, help="end the game after this many turns")
    parser.add_argument("--factions", default=None,
                        help="factions in play, separated by commas (default: all seven)")
    parser.add_argument("--max-interactions", type=int, default=MAX_INTERACTIONS)
    parser.add_argument("--model", action="store_true",
                        help="through the Discord model: latency, rate limits, tokens, archiving; the weekly pace "
                             "and 20 virtual minutes between answers")
    parser.add_argument("--gap-minutes", type=float, default=20.0,
                        help="with --model, the virtual minutes between two answers (default %(default)s)")
    args = parser.parse_args(argv)
    factions = [Faction(f.strip()) for f in args.factions.split(",")] if args.factions else None
    summary = asyncio.run(playthrough(args.seed, args.turns, factions, args.max_interactions, args.model,
                                      args.gap_minutes * 60))
    log(f"{summary.stopped}: turn {summary.turns}, winner {summary.winner}, "
        f"{sum(summary.interactions.values())} interactions, {summary.seconds} s")
    print(summary.to_json())
    return 0 if summary.finished else 1


if __name__ == "__main__":
    sys.exit(main())
