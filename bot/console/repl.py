"""The console's commands: each line becomes a GameService call, exactly as a Discord command would.

Every command ends by draining the outbox through the ConsoleGateway, so channel posts print at once and DMs
land in their faction's inbox. A refusal (by the service, the rules or the console itself) prints its reason
and changes nothing.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pydantic_core
from pydantic import ValidationError

from bot.app.lobby import options_text, parse_options
from bot.app.ports import GameRecordRow, GameStatus
from bot.app.service import GameService, Refused, ServiceError
from bot.app.words import NotUnderstood, parse_faction, parse_factions, whole_number
from bot.console.gateway import ConsoleGateway
from bot.console.text import format_prompt, format_view
from engine.actions import (
    Action,
    AdminAction,
    AnswerRevealKarama,
    AnswerRevealWindow,
    AskPrescience,
    CallTraitor,
    ChooseBtAttack,
    EndNexus,
    GrantAllyRevival,
    LayTraps,
    MarkBtTraitor,
    PassBid,
    PlayStormCards,
    RideWorm,
    SendAdvisor,
    SkipMove,
    SkipShipment,
    TrapsAndGifts,
    UseVoice,
    parse_action,
)
from engine.checks.autoplay import play_prompt
from engine.flow import DEFAULTS
from engine.ids import Faction
from engine.model import GameState, Prompt, PromptKind
from engine.names import decision_topic, faction_name
from engine.options import GameOptions, GameSetup
from engine.record import record_game, save_record
from engine.rng import Rng
from engine.secrecy.views import view

GUILD_ID = 1
CHANNEL_ID = 1  # the console plays the one game of its one channel
ADMIN_ID = 1
ADMIN_NAME = "console"
SEAT_USER_IDS = {faction: 101 + number for number, faction in enumerate(Faction)}
ADMIN_TYPES = {cls.model_fields["type"].default for cls in AdminAction.__subclasses__()}
MAX_DRAIN_ROUNDS = 1000

# `pass`: the answer that declines each kind of decision (the kinds missing here have no "no").
DECLINE: dict[PromptKind, Callable[[Faction], Action]] = {
    PromptKind.BID: lambda f: PassBid(faction=f),
    PromptKind.SHIPMENT: lambda f: SkipShipment(faction=f),
    PromptKind.MOVEMENT: lambda f: SkipMove(faction=f),
    PromptKind.NEXUS: lambda f: EndNexus(faction=f),
    PromptKind.STORM_CARDS: lambda f: PlayStormCards(faction=f),
    PromptKind.TRAITOR_CALL: lambda f: CallTraitor(faction=f, call=False),
    PromptKind.SPIRITUAL_ADVISOR: lambda f: SendAdvisor(faction=f, accept=False),
    PromptKind.WORM_RIDE: lambda f: RideWorm(faction=f),
    PromptKind.PRESCIENCE: lambda f: AskPrescience(faction=f),
    PromptKind.VOICE: lambda f: UseVoice(faction=f),
    PromptKind.BT_TRAPS: lambda f: LayTraps(faction=f),
    PromptKind.BT_TRAPS_AND_GIFTS: lambda f: TrapsAndGifts(faction=f),
    PromptKind.BT_ATTACK: lambda f: ChooseBtAttack(faction=f),
    PromptKind.BT_MARK: lambda f: MarkBtTraitor(faction=f),
    PromptKind.BT_REVEAL_WINDOW: lambda f: AnswerRevealWindow(faction=f),
    PromptKind.BT_REVEAL_KARAMA: lambda f: AnswerRevealKarama(faction=f, cancel=False),
    PromptKind.BT_ALLY_REVIVAL: lambda f: GrantAllyRevival(faction=f, grant=False),
}

HELP = """\
Commands (one per line):
  new <faction,...> [--seed N] [--options a,b|all|name=value]   create a game and seat every faction
  start                          deal and begin
  as <faction>                   act as this faction (bt and bg are short names)
  prompts                        the acting faction's open decisions, with choices and limits
  view                           what the acting faction sees: the table and its own secrets
  table                          what the whole table sees
  inbox [faction]                print and clear a faction's DMs (default: the acting faction)
  do <json>                      submit an action, e.g. do {"type":"bid","amount":2} (faction = acting seat)
  pass                           decline the acting faction's oldest decision (pass a bid, skip a move...)
  default [prompt]               take the declared default of the acting faction's oldest (or named) decision
  auto [N]                       automatic players answer the next N open decisions, any faction (default 1)
  admin <json>                   a correction with admin rights, e.g. admin {"type":"set_spice",...}
  undo N [force]                 take back the last N actions (force: even past a secret reveal)
  dm close|open <faction>        refuse (or accept again) DMs for a faction, to see the fallback
  status                         the game, its version and its seats
  export PATH                    write the game record (setup + actions), checked by python -m engine replay
  help, quit"""


class CommandError(Exception):
    """A command the console cannot run as typed (unknown word, bad JSON, no game yet)."""


def _json_object(text: str) -> dict:
    """The line's JSON object. pydantic's parser refuses what would break Python's (nesting thousands deep, a
    number of thousands of digits) with a plain error."""
    try:
        data = pydantic_core.from_json(text)
    except ValueError as error:
        raise CommandError(f"Not valid JSON ({error}): {text[:80]!r}") from None
    if not isinstance(data, dict) or not isinstance(data.get("type", ""), str):
        raise CommandError('An action is a JSON object whose "type" is a word, e.g. {"type":"bid","amount":2}.')
    return data


def _action(data: dict) -> Action:
    try:
        return parse_action(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CommandError(f"Not a valid action: {where}: {first['msg']}.") from None


class Console:
    def __init__(self, service: GameService, gateway: ConsoleGateway, out: Callable[[str], None] = print,
                 default_seed: int | None = None, default_options: GameOptions | None = None) -> None:
        self.service = service
        self.gateway = gateway
        self.out = out
        self.default_seed = default_seed
        self.default_options = default_options or GameOptions()
        self.game_id: str | None = None
        self.seat: Faction | None = None
        self.finished = False
        self.stop_requested = False

    # --- running -------------------------------------------------------------------------------

    async def resume(self) -> None:
        """Pick up the channel's stored game (a --db from an earlier session) and deliver what is pending."""
        row = await self.service.store.game_in_channel(CHANNEL_ID)
        if row is not None:
            self.game_id = row.game_id
            self.seat = next((Faction(f) for f in self._setup(row).factions if f.value in row.seats), None)
            self.out(f"Resumed game {row.game_id} ({row.status.value}, version {row.seq}); acting as "
                     f"{faction_name(self.seat) if self.seat else 'nobody'}.")
        await self.drain()
        self._announce_dms()

    async def execute(self, line: str) -> bool:
        """Run one command line; False when it was refused (its reason is printed)."""
        verb, _, rest = line.strip().partition(" ")
        handler = getattr(self, f"cmd_{verb.lower()}", None) if verb.isidentifier() else None
        ok = False
        try:
            if handler is None:
                raise CommandError(f"Unknown command {verb!r}; type help for the list.")
            await handler(rest.strip())
            ok = True
        except Refused as refusal:
            self.out(f"refused: {refusal.violation}")
        except ServiceError as refusal:
            self.out(f"refused: {refusal}")
        except (CommandError, NotUnderstood) as error:
            self.out(f"error: {error}")
        await self.drain()
        self._announce_dms()
        return ok

    async def run_script(self, path: Path) -> int:
        """Run a file of commands, echoing each. A line starting with `!` must be refused; any other line
        must succeed. Returns the exit status: 0, or 1 at the first line that did not do as expected."""
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if self.stop_requested:
                self.out(f"stopped before line {number} of {path}: the rest of the script was not run")
                break
            self.out(f"> {line}")
            expect_refusal = line.startswith("!")
            ok = await self.execute(line[1:] if expect_refusal else line)
            if ok and expect_refusal:
                self.out(f"script {path} line {number}: expected a refusal, but the command was accepted")
                return 1
            if not ok and not expect_refusal:
                self.out(f"script {path} line {number}: the command failed")
                return 1
            if self.finished:
                break
        return 0

    def stop(self) -> None:
        """Asked to stop (SIGTERM, Ctrl-C): a script ends after the command in progress and its deliveries."""
        self.stop_requested = True

    def prompt_text(self) -> str:
        return f"mentat[{self.seat.value}]> " if self.seat else "mentat> "

    async def drain(self) -> None:
        """Deliver the whole outbox (a failed DM queues a channel notice, delivered on the next round)."""
        for _ in range(MAX_DRAIN_ROUNDS):
            if not await self.service.store.pending_outbox(limit=1):
                return
            await self.service.deliver(self.gateway)

    def _announce_dms(self) -> None:
        fresh = self.gateway.take_fresh()
        if fresh:
            self.out("[DM] new: " + ", ".join(f"{faction} {count}" for faction, count in fresh.items())
                     + " (read with inbox <faction>)")

    # --- helpers -------------------------------------------------------------------------------

    async def _row(self) -> GameRecordRow:
        if self.game_id is None:
            raise CommandError("There is no game yet: create one with new <faction,...>.")
        row = await self.service.store.load_game(self.game_id)
        if row is None:
            raise CommandError(f"The game {self.game_id} is gone from the store.")
        return row

    @staticmethod
    def _setup(row: GameRecordRow) -> GameSetup:
        return GameSetup.model_validate_json(row.setup_json)

    @staticmethod
    def _state(row: GameRecordRow) -> GameState:
        return GameState.model_validate_json(row.state_json)

    def _acting(self, row: GameRecordRow) -> tuple[Faction, int]:
        if self.seat is None:
            raise CommandError("No one is acting: choose a seat with as <faction>.")
        user = row.seats.get(self.seat.value)
        if user is None:
            raise CommandError(f"No one is seated as {self.seat.value}.")
        return self.seat, user

    def _own_prompt(self, state: GameState, faction: Faction, prompt_id: str | None) -> Prompt:
        own = view(state, faction).own_prompts  # oldest first
        if prompt_id:
            chosen = next((p for p in own if p.id == prompt_id), None)
            if chosen is None:
                raise CommandError(f"{faction_name(faction)} has no open decision {prompt_id!r}; open: "
                                   + (", ".join(p.id for p in own) or "none") + ".")
            return chosen
        if not own:
            raise CommandError(f"{faction_name(faction)} has no open decision.")
        return own[0]

    async def _submit(self, user: int, action: Action, *, admin: bool = False, prompt_id: str | None = None) -> None:
        accepted = await self.service.submit(await self._game_id(), user, action, admin=admin, prompt_id=prompt_id)
        who = getattr(action, "faction", None)
        by = f" for {faction_name(who)}" if isinstance(who, Faction) and not isinstance(action, AdminAction) else ""
        self.out(f"accepted: {action.type}{by} (version {accepted.seq})")

    async def _game_id(self) -> str:
        return (await self._row()).game_id

    # --- commands ------------------------------------------------------------------------------

    async def cmd_help(self, rest: str) -> None:
        self.out(HELP)

    async def cmd_new(self, rest: str) -> None:
        tokens = shlex.split(rest)
        factions: list[Faction] = []
        seed, options = self.default_seed, self.default_options
        while tokens:
            token = tokens.pop(0)
            if token in ("--seed", "--options"):
                if not tokens:
                    raise CommandError(f"{token} needs a value.")
                value = tokens.pop(0)
                if token == "--options":
                    options = parse_options(value)
                elif (number := whole_number(value)) is not None:
                    seed = number
                else:
                    raise CommandError(f"The seed is a whole number, not {value!r}.")
            else:
                factions += parse_factions(token)
        if not factions:
            raise CommandError("Usage: new <faction,...> [--seed N] [--options a,b|all].")
        row = await self.service.create_game(GUILD_ID, CHANNEL_ID, factions, options, seed)
        for faction in factions:
            await self.service.seat(row.game_id, faction, SEAT_USER_IDS[faction])
        self.game_id, self.seat = row.game_id, factions[0]
        self.out(f"Game {row.game_id} created with seed {self._setup(row).seed}; every seat is taken here. "
                 f"Acting as {faction_name(self.seat)}. Type start to begin.")

    async def cmd_start(self, rest: str) -> None:
        unreachable = await self.service.start(await self._game_id(), probe=self.gateway)
        self.out("The game has started." + (f" No DMs reach: {', '.join(unreachable)} (they use prompts)."
                                            if unreachable else ""))

    async def cmd_as(self, rest: str) -> None:
        if not rest:
            raise CommandError("Usage: as <faction>.")
        faction = parse_faction(rest)
        row = await self._row()
        in_game = self._setup(row).factions
        if faction not in in_game:
            raise CommandError(f"{faction_name(faction)} is not in this game; its factions are "
                               + ", ".join(f.value for f in in_game) + ".")
        if faction.value not in row.seats:
            raise CommandError(f"No one is seated as {faction.value}.")
        self.seat = faction
        waiting = len(view(self._state(row), faction).own_prompts)
        unread = len(self.gateway.inboxes.get(faction.value, []))
        self.out(f"Acting as {faction_name(faction)}: {waiting} open decision(s), {unread} unread DM(s).")

    async def cmd_prompts(self, rest: str) -> None:
        row = await self._row()
        faction, _ = self._acting(row)
        own = view(self._state(row), faction).own_prompts
        if not own:
            self.out(f"{faction_name(faction)} has no open decision.")
        for prompt in own:
            self.out(format_prompt(prompt))

    async def cmd_view(self, rest: str) -> None:
        row = await self._row()
        faction, _ = self._acting(row)
        self.out(format_view(view(self._state(row), faction)))

    async def cmd_table(self, rest: str) -> None:
        self.out(format_view(view(self._state(await self._row()), None)))

    async def cmd_inbox(self, rest: str) -> None:
        faction = parse_faction(rest) if rest else self.seat
        if faction is None:
            raise CommandError("Usage: inbox <faction> (or choose a seat with as).")
        messages = self.gateway.take_inbox(faction.value)
        self.out(f"Inbox of {faction_name(faction)}: {len(messages)} message(s).")
        for text in messages:
            self.out("  " + text.replace("\n", "\n  "))

    async def cmd_do(self, rest: str) -> None:
        row = await self._row()
        faction, user = self._acting(row)
        data = _json_object(rest)
        if data.get("type") in ADMIN_TYPES:
            raise CommandError(f"{data['type']} is a correction: submit it with admin <json>.")
        data.setdefault("faction", faction.value)
        await self._submit(user, _action(data))

    async def cmd_admin(self, rest: str) -> None:
        data = _json_object(rest)
        if data.get("type") in ADMIN_TYPES:
            data.setdefault("admin", ADMIN_NAME)
            data.setdefault("reason", "console correction")
        elif self.seat is not None:
            data.setdefault("faction", self.seat.value)  # a player action taken with admin rights
        await self._submit(ADMIN_ID, _action(data), admin=True)

    async def cmd_pass(self, rest: str) -> None:
        row = await self._row()
        faction, user = self._acting(row)
        prompt = self._own_prompt(self._state(row), faction, rest or None)
        decline = DECLINE.get(prompt.kind)
        if decline is None:
            raise CommandError(f"A {decision_topic(prompt.kind)} decision cannot be passed; answer it "
                               "with do <json> or default.")
        await self._submit(user, decline(faction), prompt_id=prompt.id)

    async def cmd_default(self, rest: str) -> None:
        row = await self._row()
        faction, user = self._acting(row)
        state = self._state(row)
        prompt = self._own_prompt(state, faction, rest or None)
        await self._submit(user, DEFAULTS[prompt.kind](state, prompt), prompt_id=prompt.id)

    async def cmd_auto(self, rest: str) -> None:
        wanted = whole_number(rest) if rest else 1
        if wanted is None:
            raise CommandError("Usage: auto [N], N a whole number.")
        row = await self._row()
        rng = Rng.from_seed(self._setup(row).seed * 1_000_003 + row.seq)  # reproducible from the game's version
        taken = 0
        while taken < wanted and row.status == GameStatus.RUNNING:
            state = self._state(row)
            if not state.prompts:
                break
            prompt = rng.choice(state.prompts)
            action, _ = play_prompt(state, prompt, rng)  # a sample the rules accept (checked on a copy)
            await self.service.submit(row.game_id, row.seats[prompt.faction.value], action, prompt_id=prompt.id)
            taken += 1
            await self.drain()
            row = await self._row()
        state = self._state(row)
        self.out(f"auto: {taken} decision(s) taken; turn {state.turn}, phase {state.phase.value}, "
                 f"game {row.status.value}.")

    async def cmd_undo(self, rest: str) -> None:
        words = rest.split()
        count = whole_number(words[0]) if words else None
        if count is None or words[1:] not in ([], ["force"]):
            raise CommandError("Usage: undo N [force].")
        keep = await self.service.undo(await self._game_id(), count, force=bool(words[1:]), by=ADMIN_NAME,
                                       reason="console correction")
        self.out(f"Undone: the game is back at version {keep}.")

    async def cmd_dm(self, rest: str) -> None:
        words = rest.split()
        if len(words) != 2 or words[0] not in ("close", "open"):
            raise CommandError("Usage: dm close|open <faction>.")
        faction = parse_faction(words[1])
        if words[0] == "close":
            self.gateway.closed.add(faction.value)
        else:
            self.gateway.closed.discard(faction.value)
        self.out(f"DMs to {faction_name(faction)} are now {'refused' if words[0] == 'close' else 'accepted'}.")

    async def cmd_status(self, rest: str) -> None:
        row = await self._row()
        state = self._state(row)
        seats = ", ".join(f"{faction} (user {user})" for faction, user in row.seats.items())
        self.out(f"Game {row.game_id}: {row.status.value}, version {row.seq}, turn {state.turn}, phase "
                 f"{state.phase.value}. Seats: {seats}. Acting as {self.seat.value if self.seat else 'nobody'}. "
                 f"Options: {options_text(state.setup.options)}.")

    async def cmd_export(self, rest: str) -> None:
        if not rest:
            raise CommandError("Usage: export PATH.")
        row = await self._row()
        actions = [parse_action(stored.action_json) for stored in await self.service.store.actions(row.game_id)]
        path = Path(rest)
        try:
            save_record(record_game(self._setup(row), actions, self._state(row)), path)
        except OSError as error:
            raise CommandError(f"Cannot write {path}: {error}") from None
        self.out(f"Exported {len(actions)} action(s) to {path}.")

    async def cmd_quit(self, rest: str) -> None:
        self.finished = True

    cmd_exit = cmd_quit
