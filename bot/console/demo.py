"""`python -m bot.console.demo [--seed N] [--out DIR] [--options ...] [--turns N] [--store memory|sqlite]`:
a whole game played offline by automatic players, through the bot's own service and the console front.

Seven factions with the Bene Tleilaxu and every BT option. The console creates, seats and starts the game
(`new`, `start`); the automatic players (engine/checks/autoplay.py: a random legal answer to an open decision, and
now and then a card played at any time) submit through GameService.submit exactly as a Discord button would,
and the console gateway delivers the outbox: the channel feed, and each faction's DMs into its own inbox.
Written to the output directory: channel.txt, dm-<faction>.txt, game.json (the exported game, which
`python -m engine replay` verifies), map-turn-NN.png (the table's picture as turn NN begins) and map-end.png.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.app.map_picture import render_map
from bot.app.ports import GameRecordRow, GameStatus, GameStore, OutgoingMessage
from bot.app.service import Accepted, GameService
from bot.console.gateway import CHANNEL_PREFIX, ConsoleGateway
from bot.console.repl import Console
from bot.store.memory import MemoryGameStore
from bot.store.sqlite import SqliteGameStore
from engine.actions import Action, PlayerAction
from engine.checks.autoplay import BT_COUNTS, bt_counts, play_prompt, spontaneous_action
from engine.events import Event, EventType
from engine.ids import Faction
from engine.model import GameState, Phase
from engine.names import faction_name
from engine.options import GameOptions
from engine.rng import Rng

BT_OPTIONS = tuple(name for name in GameOptions.model_fields if name.startswith("bt_"))
# A game in which the automatic players use every power the BT have (engine.checks.autoplay.BT_COUNTS), when it
# was chosen; a change to the rules or to the players may change the game a seed gives.
DEFAULT_SEED = 85
MAX_ACTIONS = 20_000  # a whole game takes under a thousand; more means the players are stuck


class CountingGateway(ConsoleGateway):
    """The console gateway, also counting the channel posts it delivers (a post may span several lines)."""

    def __init__(self, out: Callable[[str], None]) -> None:
        super().__init__(out)
        self.channel_posts = 0

    async def deliver(self, game: GameRecordRow, message: OutgoingMessage,
                      then: Sequence[OutgoingMessage] = ()) -> str | None:
        ref = await super().deliver(game, message, then)
        self.channel_posts += (message.recipient.faction is None and message.recipient.thread is None
                               and message.edit_of is None)  # a new post in the channel itself
        return ref


@dataclass
class DemoResult:
    factions: list[Faction]
    options: GameOptions
    ended: bool
    turns: int
    winners: list[Faction]
    ending: str  # the game_over announcement: who won and why
    bt: dict[str, int]  # how often each Bene Tleilaxu power was used (engine.checks.autoplay.BT_COUNTS)
    actions: int
    channel_posts: int
    dms: dict[str, int]
    files: list[Path] = field(default_factory=list)
    maps: list[Path] = field(default_factory=list)


def options_text(options: str | None, turns: int | None) -> str:
    """The console's `new --options` value: the BT options (or the given ones), plus the last turn."""
    if options == "all":
        names = [name for name, f in GameOptions.model_fields.items() if f.annotation is bool]
    else:
        names = [name.strip() for name in (options.split(",") if options else BT_OPTIONS) if name.strip()]
    if turns is not None:
        names.append(f"turns={turns}")
    return ",".join(names)


class DemoPlayers:
    """Automatic players for every seat, submitting through the service; the console delivers the outbox."""

    def __init__(self, console: Console, seed: int, out_dir: Path) -> None:
        self.console = console
        self.service = console.service
        self.rng = Rng.from_seed(seed)  # the players' own generator: the game's randomness stays the game's
        self.out_dir = out_dir
        self.maps: list[Path] = []
        self.ending = ""
        self.bt: Counter[str] = Counter({name: 0 for name in BT_COUNTS})  # how often each BT power was used

    async def play(self, game_id: str) -> GameState:
        row = await self.service.store.load_game(game_id)
        assert row is not None
        state = await self.service.state_of(game_id)
        for _ in range(MAX_ACTIONS):
            if row.status != GameStatus.RUNNING or not state.prompts:
                break
            events = await self._step(row, state)
            self.ending = next((e.message for e in events if e.type == EventType.GAME_OVER), self.ending)
            self.bt.update(bt_counts(events))
            await self.console.drain()
            row = await self.service.store.load_game(game_id)
            assert row is not None
            after = await self.service.state_of(game_id)
            if after.turn != state.turn:
                self._draw(after, f"map-turn-{after.turn:02d}.png")
            state = after
        self._draw(state, "map-end.png")
        return state

    async def _step(self, row: GameRecordRow, state: GameState) -> list[Event]:
        """One decision, as engine.checks.autoplay.play_game takes it: now and then something a faction may do at any
        time (legal: engine/rules/anytime.py), otherwise a random open prompt answered with a legal choice."""
        spontaneous = spontaneous_action(state, self.rng)
        if spontaneous is not None:
            return (await self._submit(row, spontaneous)).events
        prompt = self.rng.choice(state.prompts)
        action, _ = play_prompt(state, prompt, self.rng)  # a sample the rules accept (tried on a copy)
        return (await self._submit(row, action, prompt.id)).events

    async def _submit(self, row: GameRecordRow, action: Action, prompt_id: str | None = None) -> Accepted:
        assert isinstance(action, PlayerAction)  # the players' moves: autoplay makes no moderator's
        return await self.service.submit(row.game_id, row.seats[action.faction.value], action, prompt_id=prompt_id)

    def _draw(self, state: GameState, name: str) -> None:
        """The table's picture (public facts only): as each turn begins, and as the game ends."""
        path = self.out_dir / name
        path.write_bytes(render_map(state, None))
        self.maps.append(path)


async def play_demo(store: GameStore, seed: int, out_dir: Path, options: str) -> DemoResult:
    channel: list[str] = []
    gateway = CountingGateway(channel.append)
    log: list[str] = []  # the console's own replies ("accepted: ..."), not part of the channel
    console = Console(GameService(store), gateway, out=log.append)
    factions = list(Faction)
    for command in (f"new {','.join(f.value for f in factions)} --seed {seed} --options {options}", "start"):
        if not await console.execute(command):
            raise SystemExit(f"the console refused {command!r}: {log[-1]}")
    game_id = console.game_id
    assert game_id is not None
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("map-*.png"):  # a shorter game must not leave an older game's maps
        stale.unlink()
    players = DemoPlayers(console, seed, out_dir)
    state = await players.play(game_id)
    row = await store.load_game(game_id)
    assert row is not None
    files = [out_dir / "channel.txt"]
    files[0].write_text("\n".join(_feed_line(line) for line in channel) + "\n", encoding="utf-8")
    for faction in factions:
        path = out_dir / f"dm-{faction.value}.txt"
        path.write_text("\n\n".join(gateway.inboxes.get(faction.value, [])) + "\n", encoding="utf-8")
        files.append(path)
    files.append(out_dir / "game.json")
    files[-1].write_text(await console.service.record(game_id) + "\n", encoding="utf-8")
    return DemoResult(factions=factions, options=state.setup.options, ended=state.phase == Phase.ENDED,
                      turns=state.turn, winners=state.winners,
                      ending=players.ending or f"The game stopped in {state.phase.value} without an end.",
                      bt={name: players.bt[name] for name in BT_COUNTS},
                      actions=row.seq, channel_posts=gateway.channel_posts,
                      dms={f.value: len(gateway.inboxes.get(f.value, [])) for f in factions},
                      files=files, maps=players.maps)


def _feed_line(line: str) -> str:
    """A line of the table's feed as the file keeps it: the channel's bare, a turn thread's as "[Turn 3] ..."."""
    if line.startswith(CHANNEL_PREFIX):
        return line.removeprefix(CHANNEL_PREFIX)
    thread, _, text = line.removeprefix("[#game > ").partition("] ")
    return f"[{thread}] {text}"


def report(result: DemoResult, seconds: float, store: str) -> str:
    on = [name for name, f in GameOptions.model_fields.items()
          if f.annotation is bool and getattr(result.options, name)]
    dms = ", ".join(f"{faction} {count}" for faction, count in result.dms.items())
    winners = " and ".join(faction_name(f) for f in result.winners) or "nobody"
    return "\n".join([
        "Mentat demo: a whole game of Dune played offline by automatic players, through the bot's service "
        f"({store} store) and the console front.",
        "Factions: " + ", ".join(faction_name(f) for f in result.factions) + ".",
        "Options on: " + ", ".join(on) + f"; last turn {result.options.turns}.",
        f"Turns played: {result.turns}. Winner: {winners}.",
        f"Why: {result.ending}",
        "Bene Tleilaxu powers used: " + ", ".join(f"{name.replace('_', ' ')} {count}"
                                                  for name, count in result.bt.items()) + ".",
        f"Actions: {result.actions}. Channel posts: {result.channel_posts}. DMs: {sum(result.dms.values())} "
        f"({dms}).",
        f"Files written to {result.files[0].parent}: " + ", ".join(p.name for p in result.files)
        + (f", map-turn-01.png to {result.maps[-2].name} (the board as each turn begins) and map-end.png"
           if len(result.maps) > 1 else ", and no map pictures"),
        f"Check the log: python -m engine replay {result.files[-1]}",
        f"Wall time: {seconds:.1f} s.",
    ])


async def _run(args: argparse.Namespace) -> DemoResult:
    with tempfile.TemporaryDirectory(prefix="mentat-demo-") as scratch:
        store: GameStore = (await SqliteGameStore.open(Path(scratch) / "demo.sqlite") if args.store == "sqlite"
                            else MemoryGameStore())
        try:
            return await play_demo(store, args.seed, Path(args.out), options_text(args.options, args.turns))
        finally:
            await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.console.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the game's seed (and the players')")
    parser.add_argument("--out", default="out/demo", help="the output directory (default out/demo)")
    parser.add_argument("--options", help="'all', or comma-separated options as for the console's `new` "
                                          f"(default: {','.join(BT_OPTIONS)})")
    parser.add_argument("--turns", type=int, help="end the game after this turn (A-10; default 15)")
    parser.add_argument("--store", choices=("memory", "sqlite"), default="memory",
                        help="the memory store (default) or a temporary SQLite file, as the bot uses (slower: one "
                             "synchronous commit per action and per delivered message)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = asyncio.run(_run(args))
    print(report(result, time.perf_counter() - started, args.store))
    return 0 if result.ended else 1


if __name__ == "__main__":
    sys.exit(main())
