"""What makes a position document impossible, in words a scenario's author can act on (docs/positions.md).

Two passes: `document_problems` reads the document alone (factions, places, tokens, leaders, dots, powers);
`card_problems` reads the state built from it before its decks are filled (every card in one place at most).
engine/checks/invariants.py then checks the finished state like any state of a game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from engine.data import GameData
from engine.factions.captives import CAPTURED_LEADER_DRAW
from engine.ids import Faction
from engine.model import GameState, Phase, PromptKind
from engine.phases.battle import BT_ATTACK_STEP, FIGHTING_STEP, TRAPS_STEP, cards_on_the_table
from engine.phases.bidding import AUCTION, BEFORE_BIDDING
from engine.phases.bt_attack import TRAP_LEADER_DRAW
from engine.phases.movement import REVIVAL_STEP, TURNS_STEP
from engine.phases.setup import PLACEMENT_STEP, SECRETS_STEP
from engine.phases.spice_blow import CLOSING, DRAWING, KARAMA_WORM, NEXUS
from engine.phases.storm import DIALING, FORECAST
from engine.positions.schema import Position
from engine.rules.cards import STORM_CARDS_STEP

BT = Faction.BENE_TLEILAXU
BG = Faction.BENE_GESSERIT
G = Faction.GUILD
DRAWS = (TRAP_LEADER_DRAW, CAPTURED_LEADER_DRAW)
STEPS = {  # each phase's steps, as its runner reads them ("" is the start: nothing done yet)
    Phase.SETUP: (SECRETS_STEP, PLACEMENT_STEP),
    Phase.STORM: ("", DIALING, STORM_CARDS_STEP, FORECAST),
    Phase.SPICE_BLOW: ("", DRAWING, KARAMA_WORM, CLOSING, NEXUS),
    Phase.BIDDING: ("", BEFORE_BIDDING, AUCTION),
    Phase.MOVEMENT: ("", REVIVAL_STEP, TURNS_STEP),
    Phase.BATTLE: ("", TRAPS_STEP, FIGHTING_STEP, BT_ATTACK_STEP),
    Phase.COLLECTION: ("",),
    Phase.ENDED: ("",),
}
PER_FACTION = ("dots", "spice", "bribes", "tanks", "elite_tanks", "elite_revived_turn", "dead_leaders", "hands",
               "traitors", "bid_orders", "storm_dials", "storm_forecast", "storm_card_plays")


def document_problems(position: Position, data: GameData) -> list[str]:
    return [
        *_strangers(position),
        *_places(position, data),
        *_tokens(position, data),
        *_dots(position, data),
        *_leaders(position, data),
        *_hands(position, data),
        *_powers(position, data),
        *_step(position),
    ]


def _strangers(position: Position) -> list[str]:
    """Every faction named is in the game."""
    playing = set(position.factions)
    named: list[tuple[str, Faction]] = [(key, f) for key in PER_FACTION for f in getattr(position, key)]
    named += [(f"forces at {loc}", f) for loc, here in position.forces.items() for f in here]
    named += [(f"elites at {loc}", f) for loc, here in position.elites.items() for f in here]
    named += [(key, f) for key in ("auto_traitor", "never_storm_cards", "nexus_done_at_once", "pass_when_outbid",
                                   "revive_free_tokens", "winners", "special_karama_used")
              for f in getattr(position, key)]
    named += [("alliances", f) for alliance in position.alliances for f in alliance]
    named += [(f"prompt {p.id}", p.faction) for p in position.prompts]
    named += [("captured", f) for f in position.captured.values()]
    if position.prediction is not None:
        named.append(("prediction", position.prediction.faction))
    return [f"{where} names {f.value}, which is not in this game" for where, f in named if f not in playing]


def _places(position: Position, data: GameData) -> list[str]:
    """Every location is a sector of a territory (or the Polar Sink)."""
    found = []
    for key in ("forces", "elites", "advisors", "spice_on_board"):
        found += [f"{key}: {problem}" for loc in getattr(position, key) if (problem := _location_problem(loc, data))]
    strongholds = data.board.strongholds
    found += [f"traps: {name!r} is not a stronghold (strongholds: {', '.join(strongholds)})"
              for name in position.traps if name not in strongholds]
    return found


def _location_problem(location: str, data: GameData) -> str | None:
    board = data.board
    if location in board.all_locations():
        return None
    territory, _, sector = location.partition("#")
    if territory not in board.territories:
        return f"unknown territory {territory!r} (a location is 'Territory#sector' or 'Polar Sink')"
    sectors = board.territory(territory).sectors
    if not sector:
        return f"{location!r} needs its sector: write '{territory}#{sectors[0]}'" + (
            f" (its sectors: {', '.join(map(str, sectors))})" if len(sectors) > 1 else "")
    return f"sector {sector} is not in {territory} (its sectors: {', '.join(map(str, sectors))})"


def _tokens(position: Position, data: GameData) -> list[str]:
    """Tokens on the board and in the tanks are among the faction's 20 (the reserves hold the rest)."""
    found = []
    on_board: Counter[Faction] = Counter()
    for here in position.forces.values():
        on_board.update(here)
    on_board[BG] += sum(position.advisors.values())
    if on_board[BT] or position.tanks.get(BT):
        found.append("BT-1: the Bene Tleilaxu have no tokens, yet the position gives them some")
    for faction in position.factions:
        total = data.factions[faction].tokens_total
        held = on_board[faction] + position.tanks.get(faction, 0)
        if faction != BT and held > total:
            found.append(f"{faction.value} has {held} tokens on the board and in the tanks; a faction has {total}")
    if position.advisors and BG not in position.factions:
        found.append("advisors are Bene Gesserit tokens, and the Bene Gesserit are not in this game")
    found += _elites(position, data)
    return found


def _elites(position: Position, data: GameData) -> list[str]:
    """A-15: Sardaukar and Fedaykin are among their faction's tokens, as many as factions.json allows."""
    elites: Counter[Faction] = Counter()
    for here in position.elites.values():
        elites.update(here)
    elites.update(position.elite_tanks)
    if +elites and not position.options.character_advantages:
        return ["elite tokens need the option character_advantages (A-15)"]
    found = []
    for faction, count in elites.items():
        allowed = data.factions[faction].special_tokens
        if count > allowed:
            found.append(f"{faction.value} has {count} elite tokens; it has {allowed}")
    for location, here in position.elites.items():
        for faction, count in here.items():
            tokens = position.forces.get(location, {}).get(faction, 0)
            if count > tokens:
                found.append(f"{count} {faction.value} elites at {location} among {tokens} tokens")
    for faction, count in position.elite_tanks.items():
        if count > position.tanks.get(faction, 0):
            found.append(f"{faction.value} has {count} elites in the tanks among {position.tanks.get(faction, 0)}")
    return found


def _dots(position: Position, data: GameData) -> list[str]:
    """Every faction with a dot has one, or the document states none (the default seats them)."""
    if not position.dots:
        return []
    found = []
    if BT in position.dots:
        found.append("BT-1: the Bene Tleilaxu have no player dot")
    seated = [f for f in position.factions if data.factions[f].has_dot]
    missing = [f.value for f in seated if f not in position.dots]
    if missing:
        found.append(f"dots: state every faction's dot or none; missing {', '.join(missing)}")
    dot_sectors = data.board.player_dot_sectors
    found += [f"dots: no player dot at sector {s} (dots are at {', '.join(map(str, dot_sectors))})"
              for s in position.dots.values() if s not in dot_sectors]
    found += [f"dots: two factions sit at sector {s}" for s, n in Counter(position.dots.values()).items() if n > 1]
    return found


def _leaders(position: Position, data: GameData) -> list[str]:
    """A dead leader is his own faction's and is dead once; a leader in the tanks is nowhere else."""
    found = []
    dead: list[str] = []
    for faction, leaders in position.dead_leaders.items():
        for leader in leaders:
            owner = _leader_owner(leader, data)
            if owner is None:
                found.append(f"dead_leaders: unknown leader {leader!r}")
            elif owner != faction:
                found.append(f"dead_leaders: {leader} is a leader of the {owner.value}, not of the {faction.value}")
        dead += leaders
    found += [f"{leader} is in the tanks twice" for leader, n in Counter(dead).items() if n > 1]
    for leader, captor in position.captured.items():
        owner = _leader_owner(leader, data)
        if owner is None:
            found.append(f"captured: unknown leader {leader!r}")
        elif leader in dead:
            found.append(f"{leader} is in the tanks and held captive by the {captor.value}")
        elif captor != Faction.HARKONNEN or owner == captor:
            found.append(f"captured: only the Harkonnen hold captives, and not their own ({leader})")
    in_play = set(data.traitor_deck(position.factions))
    traitor_cards = [t for hand in position.traitors.values() for t in hand] + list(position.traitor_deck or [])
    traitor_cards += [t for p in position.prompts if p.kind == PromptKind.TRAITOR_PICK for t in p.options]
    found += [f"traitor card {t!r} is not in this game's traitor deck" for t in dict.fromkeys(traitor_cards)
              if t not in in_play]
    found += [f"traitor card {t} is in two places" for t, n in Counter(traitor_cards).items() if n > 1]
    if position.traitors.get(BT):
        found.append("BT-1: the Bene Tleilaxu hold no traitor cards")
    return found


def _leader_owner(leader: str, data: GameData) -> Faction | None:
    try:
        return data.leader(leader).faction
    except KeyError:
        return None


def _hands(position: Position, data: GameData) -> list[str]:
    """A hand is within its limit, but while the Harkonnen owe the cards back of a special Karama (A-14)."""
    swapping = {p.faction for p in position.prompts if p.kind == PromptKind.HAND_SWAP}
    found = []
    for faction, hand in position.hands.items():
        limit = data.factions[faction].hand_limit
        if len(hand) > limit and faction not in swapping:
            found.append(f"{faction.value} holds {len(hand)} Treachery cards; its hand limit is {limit}")
    return found


def _powers(position: Position, data: GameData) -> list[str]:
    """The prediction, traps, the BT's powers, alliances and scripted draws fit the factions in play."""
    found = []
    prediction = position.prediction
    if prediction is not None:
        if BG not in position.factions:
            found.append("a prediction is the Bene Gesserit's, and they are not in this game")
        if prediction.faction == BG:
            found.append("the Bene Gesserit predict another faction's win, not their own")
        if not 1 <= prediction.turn <= position.options.turns:
            found.append(f"the prediction's turn {prediction.turn} is not a turn of this game "
                         f"(1-{position.options.turns})")
    found += _order_problems(position)
    has_bt = BT in position.factions
    if position.traps and not (has_bt and position.options.bt_traps):
        found.append("traps are laid by the Bene Tleilaxu with the option bt_traps (BT-30)")
    if position.bt is not None and not has_bt:
        found.append("bt describes the Bene Tleilaxu's powers, and they are not in this game")
    if position.bt is not None:
        found += [f"bt.marked: unknown leader {leader!r}" for leader in position.bt.marked
                  if _leader_owner(leader, data) is None]
        found += [f"bt.controlled: unknown territory {name!r}" for name in position.bt.controlled
                  if name not in data.board.territories]
    found += [f"a Karama order of the {order.faction.value} names {order.card}, which is not in their hand"
              for order in position.karama_orders if order.card not in position.hands.get(order.faction, [])]
    found += _alliance_problems(position.alliances, position.options.max_alliance_size)
    found += [f"draws: no random draw is named {name!r} (named draws: {', '.join(DRAWS)})"
              for name in position.draws if name not in DRAWS]
    return found


def _order_problems(position: Position) -> list[str]:
    """Each standing order belongs to a faction whose decisions it can answer in this game."""
    found = []
    if BT in position.revive_free_tokens:
        found.append("revive_free_tokens names the Bene Tleilaxu, who have nothing to revive (BT-1)")
    if position.guild_timing_in_storm_order and not (G in position.factions and position.options.character_advantages):
        found.append("guild_timing_in_storm_order is the Spacing Guild's order, with the option character_advantages "
                     "(A-15)")
    if position.advisor_order != "ask" and BG not in position.factions:
        found.append("advisor_order is the Bene Gesserit's, and they are not in this game")
    return found


def _alliance_problems(alliances: Iterable[list[Faction]], largest: int) -> list[str]:
    found = []
    members = [f for alliance in alliances for f in alliance]
    found += [f"{f.value} is in two alliances" for f, n in Counter(members).items() if n > 1]
    found += [f"an alliance of {len(a)}: alliances have 2 to {largest} members (A-8)" for a in alliances
              if not 2 <= len(a) <= largest]
    return found


def _step(position: Position) -> list[str]:
    """The step is one of its phase's; storm dials are read only while the storm waits on them."""
    steps = STEPS[position.phase]
    if position.step not in steps:
        return [f"step {position.step!r} is not a step of the {position.phase.value} phase "
                f"(its steps: {', '.join(repr(s) for s in steps)})"]
    if position.storm_dials and (position.phase != Phase.STORM or position.step not in (DIALING, STORM_CARDS_STEP)):
        return [f"storm_dials are read in the storm phase at step {DIALING!r}; this position is at "
                f"{position.phase.value} step {position.step!r}"]
    return []


def card_problems(state: GameState, tops: dict[str, list[str]], data: GameData) -> list[str]:
    """Each Treachery and spice card is known and lies in one place at most (the decks take the rest)."""
    treachery = [(c, f"the {f.value} hand") for f, fs in state.factions.items() for c in fs.hand]
    treachery += [(trap.card, f"the trap on {s}") for s, trap in state.traps.items()]
    treachery += [(c, "the treachery discard") for c in state.treachery_discard]
    treachery += [(c, "the removed cards") for c in state.removed_cards]
    treachery += [(c, "the auction") for c in (state.bidding.cards if state.bidding else [])]
    treachery += [(c, "the battle") for c in cards_on_the_table(state)]
    treachery += [(c, "the treachery deck") for c in tops["treachery_deck"]]
    spice = [(c, "the spice discard") for c in state.spice_discard]
    spice += [(c, "spice discard B") for c in state.spice_discard_b]
    spice += [(c, "the spice cards set aside") for c in (state.spice_blow.set_aside if state.spice_blow else [])]
    spice += [(c, "the spice deck") for c in tops["spice_deck"]]
    return [*_doubles(treachery, {c.id for c in data.treachery_cards}, "Treachery card"),
            *_doubles(spice, {c.id for c in data.spice_cards}, "spice card")]


def _doubles(placed: list[tuple[str, str]], known: set[str], what: str) -> list[str]:
    where: dict[str, list[str]] = {}
    for card, place in placed:
        where.setdefault(card, []).append(place)
    found = [f"unknown {what} {card!r} in {places[0]}" for card, places in where.items() if card not in known]
    found += [f"{card} is in two places: {' and '.join(places)}" for card, places in where.items()
              if card in known and len(places) > 1]
    return found
