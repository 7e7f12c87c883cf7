"""Positions as data: `load` builds a state from a position document, `write` writes the document of any state,
`begin` loads one and runs it to its first decisions (docs/positions.md).

A document states what differs from the defaults below, and `write` leaves out every value equal to its
default, so a short hand-written scenario and the complete position of a live game are the same format, and
`write(load(doc)) == doc` for any document written that way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from engine.checks.invariants import violations
from engine.data import GameData, load_game_data
from engine.errors import EngineError
from engine.events import EventLog
from engine.flow import advance
from engine.game import Transition  # engine.game also registers every rule, which `begin` runs
from engine.ids import Faction
from engine.model import BidOrder, BtState, FactionState, GameState, Phase, Prompt, PromptKind
from engine.options import GameSetup
from engine.phases.battle import cards_on_the_table
from engine.positions.checks import card_problems, document_problems
from engine.positions.schema import FORMAT, Position
from engine.rng import Rng

__all__ = ["FORMAT", "InvalidPosition", "begin", "load", "write"]


class InvalidPosition(EngineError, ValueError):
    """A document that is no possible position; `problems` lists every reason found."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("impossible position: " + "; ".join(self.problems))


# --- loading ---------------------------------------------------------------------------------


def load(doc: Mapping[str, Any]) -> GameState:
    """The state a position document describes; InvalidPosition if it describes none."""
    try:
        position = Position.model_validate(doc)
    except ValidationError as error:
        raise InvalidPosition([_pydantic_problem(e) for e in error.errors()]) from None
    data = load_game_data()
    setup = _setup(position)
    _refuse(document_problems(position, data))
    state = _state_without_decks(position, setup, data)
    tops = {"treachery_deck": position.treachery_deck, "spice_deck": position.spice_deck}
    _refuse(card_problems(state, tops, data))
    rng = Rng.from_seed(position.seed)
    state.treachery_deck = _stack(_free_treachery(state, data), position.treachery_deck, rng)
    state.spice_deck = _stack(_free_spice(state, data), position.spice_deck, rng)
    state.rng = Rng(state=rng.state if position.rng is None else position.rng,
                    scripted={name: list(values) for name, values in position.draws.items() if values})
    _refuse([f"the position breaks an invariant: {problem}" for problem in violations(state)])
    return state


def begin(doc: Mapping[str, Any]) -> Transition:
    """Load a position and run the game on from it until it needs a decision (a hand-written position at the
    start of a step, with no open prompt, then opens that step's prompts), as new_game does for a new game."""
    state = load(doc)
    log = EventLog()
    advance(state, log)
    return Transition(state, log.items)


def _refuse(problems: list[str]) -> None:
    if problems:
        raise InvalidPosition(problems)


def _pydantic_problem(error: Mapping[str, Any]) -> str:
    where = ".".join(str(part) for part in error["loc"])
    message = error["msg"].removeprefix("Value error, ")  # a validator's own words need no label
    return f"{where}: {message}" if where else message


def _setup(position: Position) -> GameSetup:
    try:
        return GameSetup(factions=tuple(position.factions), options=position.options, seed=position.seed,
                         fixed=position.fixed)
    except ValidationError as error:
        raise InvalidPosition([_pydantic_problem(e) for e in error.errors()]) from None


def _state_without_decks(position: Position, setup: GameSetup, data: GameData) -> GameState:
    dots = position.dots or default_dots(setup.factions, data)
    return GameState(
        setup=setup,
        seq=position.seq,
        turn=default_turn(position.phase) if position.turn is None else position.turn,
        phase=position.phase,
        step=position.step,
        storm_sector=position.storm or default_storm(setup, data),
        forces={loc: dict(here) for loc, here in position.forces.items()},
        spice_on_board=dict(position.spice_on_board),
        factions={f: _faction_state(position, f, dots.get(f), data) for f in setup.factions},
        treachery_deck=[],
        treachery_discard=list(position.treachery_discard),
        removed_cards=list(position.removed_cards),
        spice_deck=[],
        spice_discard=list(position.spice_discard),
        traitor_deck_unused=(default_traitor_deck(setup.factions, position.traitors.values(), position.prompts, data)
                             if position.traitor_deck is None else list(position.traitor_deck)),
        bg_prediction=position.prediction,
        traps=dict(position.traps),
        alliances=[list(a) for a in position.alliances],
        karama_orders=list(position.karama_orders),
        shield_wall_destroyed=position.shield_wall_destroyed,
        storm_dials=dict(position.storm_dials),
        storm_card_plays=dict(position.storm_card_plays),
        spice_outside_bank=_spice_held(position, setup, data) + sum(position.spice_on_board.values()),
        bidding=position.bidding,
        movement=position.movement,
        nexus=position.nexus,
        battle=position.battle,
        victories=list(position.victories),
        bt=(position.bt or BtState()) if setup.has_bt else None,
        elites={loc: dict(here) for loc, here in position.elites.items()},
        kwisatz_haderach=position.kwisatz_haderach,
        captured=dict(position.captured),
        bg_advisors=dict(position.advisors),
        spice_discard_b=list(position.spice_discard_b),
        spice_blow=position.spice_blow,
        storm_forecast=dict(position.storm_forecast),
        special_karama_used=list(position.special_karama_used),
        special_karama_orders=list(position.special_karama_orders),
        prompts=list(position.prompts),
        next_prompt_number=position.next_prompt_number or default_next_prompt_number(position.prompts),
        winners=list(position.winners),
        rng=Rng(state=0),  # set once the decks are shuffled
    )


def _faction_state(position: Position, faction: Faction, dot: int | None, data: GameData) -> FactionState:
    on_board = sum(here.get(faction, 0) for here in position.forces.values())
    if faction == Faction.BENE_GESSERIT:
        # advisors are tokens on the board (engine/factions/coexistence.py)
        on_board += sum(position.advisors.values())
    tanks = position.tanks.get(faction, 0)
    return FactionState(
        faction=faction,
        dot=dot,
        spice=position.spice.get(faction, default_spice(faction, data)),
        reserves=data.factions[faction].tokens_total - on_board - tanks,
        tanks=tanks,
        hand=list(position.hands.get(faction, [])),
        traitors=list(position.traitors.get(faction, [])),
        leaders_in_tanks=list(position.dead_leaders.get(faction, [])),
        bribes=position.bribes.get(faction, 0),
        bid_order=position.bid_orders.get(faction, BidOrder()),
        auto_traitor=faction in position.auto_traitor,
        never_storm_cards=faction in position.never_storm_cards,
        nexus_done_at_once=faction in position.nexus_done_at_once,
        pass_when_outbid=faction in position.pass_when_outbid,
        revive_free_tokens=faction in position.revive_free_tokens,
        guild_timing_in_storm_order=faction == Faction.GUILD and position.guild_timing_in_storm_order,
        advisor_order=position.advisor_order if faction == Faction.BENE_GESSERIT else "ask",
        elite_tanks=position.elite_tanks.get(faction, 0),
        elite_revived_turn=position.elite_revived_turn.get(faction),
        revived_turn=position.revived_turn.get(faction),
    )


def _spice_held(position: Position, setup: GameSetup, data: GameData) -> int:
    """Spice behind the shields and in bribe piles: with the board's, the ledger of engine/rules/economy.py."""
    return sum(position.spice.get(f, default_spice(f, data)) + position.bribes.get(f, 0) for f in setup.factions)


# --- defaults --------------------------------------------------------------------------------


def default_turn(phase: Phase) -> int:
    return 0 if phase == Phase.SETUP else 1


def default_storm(setup: GameSetup, data: GameData) -> int:
    """Where a new game's storm starts: the fixed sector, else the Storm Start Sector (A-17)."""
    return setup.fixed.storm_sector or data.board.storm_start_sector


def default_dots(factions: tuple[Faction, ...], data: GameData) -> dict[Faction, int]:
    """The factions with a dot, in the order listed, at the dot sectors in board.json's order (18, 3, 6, ...)."""
    seated = [f for f in factions if data.factions[f].has_dot]
    return dict(zip(seated, data.board.player_dot_sectors, strict=False))


def default_spice(faction: Faction, data: GameData) -> int:
    return data.factions[faction].starting_spice


def default_traitor_deck(factions: tuple[Faction, ...], hands: Iterable[list[str]], prompts: list[Prompt],
                         data: GameData) -> list[str]:
    """The traitor cards of the leaders in play held by nobody and offered to nobody, in data order."""
    taken = {t for hand in hands for t in hand}
    taken |= {t for p in prompts if p.kind == PromptKind.TRAITOR_PICK for t in p.options}
    return [t for t in data.traitor_deck(factions) if t not in taken]


def default_next_prompt_number(prompts: list[Prompt]) -> int:
    """One past the highest open prompt ("p<number>"), 1 when none is open."""
    numbers = [int(p.id[1:]) for p in prompts if p.id[:1] == "p" and p.id[1:].isascii() and p.id[1:].isdigit()]
    return max(numbers, default=0) + 1


def _free_treachery(state: GameState, data: GameData) -> list[str]:
    """The Treachery cards in no hand, trap, pile, auction or battle, in data order: the deck's."""
    placed = {c for fs in state.factions.values() for c in fs.hand}
    placed |= {t.card for t in state.traps.values()} | set(state.treachery_discard) | set(state.removed_cards)
    placed |= set(state.bidding.cards if state.bidding else [])
    placed |= set(cards_on_the_table(state))
    return [c.id for c in data.treachery_cards if c.id not in placed]


def _free_spice(state: GameState, data: GameData) -> list[str]:
    """The spice cards in no discard pile and not set aside (A-20), in data order: the deck's."""
    placed = set(state.spice_discard) | set(state.spice_discard_b)
    placed |= set(state.spice_blow.set_aside if state.spice_blow else [])
    return [c.id for c in data.spice_cards if c.id not in placed]


def _stack(free: list[str], top: list[str], rng: Rng) -> list[str]:
    """A deck: the stated top cards in order, the other free cards shuffled beneath them (as at setup)."""
    rest = [c for c in free if c not in top]
    rng.shuffle(rest)
    return list(top) + rest


def _shortest_top(deck: list[str], all_ids: list[str], rng: Rng) -> tuple[list[str], Rng]:
    """The fewest top cards that, stated, make `_stack` rebuild `deck` (its cards being the free ones); with the
    generator as the shuffle leaves it."""
    in_deck = set(deck)
    free = [c for c in all_ids if c in in_deck]
    for count in range(len(deck) + 1):
        trial = rng.model_copy()
        if _stack(free, deck[:count], trial) == deck:
            return deck[:count], trial
    raise AssertionError("a deck stated in full always rebuilds itself")


# --- writing ---------------------------------------------------------------------------------


def write(state: GameState) -> dict[str, Any]:
    """The canonical position document of a state: every value that differs from its default, nothing else."""
    data = load_game_data()
    setup = state.setup
    doc: dict[str, Any] = {"format": FORMAT, "factions": [f.value for f in setup.factions]}
    _put(doc, "options", _dump(setup.options))
    _put(doc, "seed", setup.seed)
    _put(doc, "fixed", _dump(setup.fixed))
    _put(doc, "seq", state.seq)
    _put(doc, "turn", state.turn, default_turn(state.phase))
    _put(doc, "phase", state.phase.value, Phase.STORM.value)
    _put(doc, "step", state.step)
    _put(doc, "winners", [f.value for f in state.winners])
    _put(doc, "storm", state.storm_sector, default_storm(setup, data))
    _put(doc, "shield_wall_destroyed", state.shield_wall_destroyed)
    _put(doc, "forces", _dump_map(state.forces))
    _put(doc, "elites", _dump_map(state.elites))
    _put(doc, "advisors", dict(state.bg_advisors))
    _put(doc, "spice_on_board", dict(state.spice_on_board))
    dots = {f: fs.dot for f, fs in state.factions.items() if fs.dot is not None}
    _put(doc, "dots", {f.value: dot for f, dot in dots.items()} if dots != default_dots(setup.factions, data) else {})
    _put_each(doc, "spice", state, lambda fs: fs.spice, lambda f: default_spice(f, data))
    _put_each(doc, "bribes", state, lambda fs: fs.bribes)
    _put_each(doc, "tanks", state, lambda fs: fs.tanks)
    _put_each(doc, "elite_tanks", state, lambda fs: fs.elite_tanks)
    _put_each(doc, "elite_revived_turn", state, lambda fs: fs.elite_revived_turn, lambda f: None)
    _put_each(doc, "revived_turn", state, lambda fs: fs.revived_turn, lambda f: None)
    _put_each(doc, "dead_leaders", state, lambda fs: list(fs.leaders_in_tanks), lambda f: [])
    _put_each(doc, "hands", state, lambda fs: list(fs.hand), lambda f: [])
    _put_each(doc, "traitors", state, lambda fs: list(fs.traitors), lambda f: [])
    _put_each(doc, "bid_orders", state, lambda fs: _dump(fs.bid_order), lambda f: {})
    _put(doc, "auto_traitor", [f.value for f, fs in state.factions.items() if fs.auto_traitor])
    _put(doc, "never_storm_cards", [f.value for f, fs in state.factions.items() if fs.never_storm_cards])
    _put(doc, "nexus_done_at_once", [f.value for f, fs in state.factions.items() if fs.nexus_done_at_once])
    _put(doc, "pass_when_outbid", [f.value for f, fs in state.factions.items() if fs.pass_when_outbid])
    _put(doc, "revive_free_tokens", [f.value for f, fs in state.factions.items() if fs.revive_free_tokens])
    guild, bene_gesserit = state.factions.get(Faction.GUILD), state.factions.get(Faction.BENE_GESSERIT)
    _put(doc, "guild_timing_in_storm_order", guild is not None and guild.guild_timing_in_storm_order)
    _put(doc, "advisor_order", bene_gesserit.advisor_order if bene_gesserit else "ask", default="ask")
    rng = Rng.from_seed(setup.seed)
    treachery_top, rng = _shortest_top(state.treachery_deck, [c.id for c in data.treachery_cards], rng)
    spice_top, rng = _shortest_top(state.spice_deck, [c.id for c in data.spice_cards], rng)
    _put(doc, "treachery_deck", treachery_top)
    _put(doc, "treachery_discard", list(state.treachery_discard))
    _put(doc, "removed_cards", list(state.removed_cards))
    _put(doc, "spice_deck", spice_top)
    _put(doc, "spice_discard", list(state.spice_discard))
    _put(doc, "spice_discard_b", list(state.spice_discard_b))
    traitor_default = default_traitor_deck(setup.factions, [fs.traitors for fs in state.factions.values()],
                                           state.prompts, data)
    if state.traitor_deck_unused != traitor_default:
        doc["traitor_deck"] = list(state.traitor_deck_unused)
    _put(doc, "prediction", _dump(state.bg_prediction))
    _put(doc, "traps", {s: _dump(trap) for s, trap in state.traps.items()})
    _put(doc, "alliances", [[f.value for f in alliance] for alliance in state.alliances])
    _put(doc, "bt", _dump(state.bt))
    _put(doc, "karama_orders", [_dump(o) for o in state.karama_orders])
    _put(doc, "special_karama_used", [f.value for f in state.special_karama_used])
    _put(doc, "special_karama_orders", [_dump(o) for o in state.special_karama_orders])
    _put(doc, "kwisatz_haderach", _dump(state.kwisatz_haderach))
    _put(doc, "captured", {leader: f.value for leader, f in state.captured.items()})
    _put(doc, "victories", [_dump(v) for v in state.victories])
    _put(doc, "storm_dials", {f.value: v for f, v in state.storm_dials.items()})
    _put(doc, "storm_forecast", {f.value: v for f, v in state.storm_forecast.items()})
    _put(doc, "storm_card_plays", {f.value: _dump(p) for f, p in state.storm_card_plays.items()})
    for key in ("bidding", "movement", "nexus", "battle", "spice_blow"):
        sub_state = getattr(state, key)
        if sub_state is not None:
            doc[key] = _dump(sub_state)
    _put(doc, "prompts", [_dump(p) for p in state.prompts])
    _put(doc, "next_prompt_number", state.next_prompt_number, default_next_prompt_number(state.prompts))
    _put(doc, "rng", state.rng.state, rng.state)
    _put(doc, "draws", {name: list(values) for name, values in state.rng.scripted.items()})
    return doc


def _dump(model: BaseModel | None) -> Any:
    return None if model is None else model.model_dump(mode="json", exclude_defaults=True)


def _dump_map(by_location: Mapping[str, Mapping[Faction, int]]) -> dict[str, dict[str, int]]:
    return {loc: {f.value: n for f, n in here.items()} for loc, here in by_location.items()}


def _put(doc: dict[str, Any], key: str, value: Any, default: Any = None) -> None:
    """Write `value` unless it is its default (None, zero, False or empty when no default is given)."""
    if value != default and (default is not None or value):
        doc[key] = value


def _put_each(doc: dict[str, Any], key: str, state: GameState, value: Callable[[FactionState], Any],
              default: Callable[[Faction], Any] = lambda f: 0) -> None:
    """A per-faction map of the values that differ from each faction's default."""
    differ = {f.value: value(fs) for f, fs in state.factions.items() if value(fs) != default(f)}
    _put(doc, key, differ)
