"""Builders of positions for the BT's traitors (and many other tests): a position from its document, a stronghold
won, a game driven to a phase."""

from __future__ import annotations

from engine.actions import CallTraitor, Revive, SubmitBattlePlan
from engine.checks.invariants import violations
from engine.data import load_game_data
from engine.flow import DEFAULTS
from engine.game import apply
from engine.model import BattleVictory, Phase, PromptKind
from engine.positions.documents import FORMAT, load
from tests.conftest import BG, BT, A, E, F, G, H, enter_phase

DATA = load_game_data()

DOTS = {A: 3, E: 6, H: 9, F: 12, G: 15, BG: 17}  # storm at sector 1: A, E, H, F, G, BG, then the BT

ATREIDES = [leader.id for leader in DATA.factions[A].leaders]

ARRAKEEN, CARTHAG, TUEKS, TABR = "Arrakeen#9", "Carthag#10", "Tuek's Sietch#4", "Sietch Tabr#13"

FLAT, BASIN = "The Great Flat#14", "Imperial Basin"

GHOLA, KARAMA, CRYSKNIFE = "tleilaxu_ghola", "karama_1", "crysknife"

DUNCAN = "duncan_idaho"


def position(factions=(A, E, H, BT), *, forces=None, tanks=None, dead=None, spice=None, hands=None,
             alliances=(), marked=(), victories=(), controlled=(), turn=2, ally_revival="ask"):
    """Turn `turn` with the storm at sector 1 and exactly this position (docs/positions.md): no traps, no
    traitors, no other cards, no prediction, 10 spice each unless `spice` says otherwise; each faction's tokens
    not on the board or in the tanks are in reserve. `ally_revival`: the BT's standing order for their allies'
    free revival (BT-60)."""
    return load({
        "format": FORMAT, "factions": factions, "turn": turn, "storm": 1,
        "dots": {f: DOTS[f] for f in factions if f in DOTS}, "forces": forces or {}, "tanks": tanks or {},
        "dead_leaders": dead or {}, "spice": {f: 10 for f in factions} | (spice or {}), "hands": hands or {},
        "alliances": alliances, "victories": victories,
        "bt": {"marked": marked, "controlled": controlled, "ally_revival_order": ally_revival},
    })


def stronghold_won(territory=ARRAKEEN, faction=A, leader=DUNCAN):
    name = DATA.board.location_territory(territory)
    return BattleVictory(territory=name, faction=faction, leader=leader, stronghold=True)


def at(state, phase):
    state, _ = enter_phase(state, phase)
    assert violations(state) == []
    return state


def drive(state, until, answers=None):
    """Blocking decisions take their defaults, or the action `answers` gives for (faction, kind), until
    `until(state)` holds. The BT's non-blocking mark window is never answered here."""
    events = []
    for _ in range(400):
        if until(state):
            return state, events
        blocking = [p for p in state.prompts if p.blocking]
        assert blocking, f"the game stopped in {state.phase}"
        prompt = blocking[0]
        action = (answers or {}).get((prompt.faction, prompt.kind)) or DEFAULTS[prompt.kind](state, prompt)
        state, new = apply(state, action)
        events += new
        assert violations(state) == []
    raise AssertionError("the condition never held")


def public(events):
    return [e for e in events if e.public]


def revival_position(**changes):
    """The movement round's revival step: every Atreides leader is dead and the Atreides have spice."""
    base = dict(dead={A: ATREIDES}, spice={A: 20, BT: 5})
    base.update(changes)
    return at(position(**base), Phase.MOVEMENT)


def battle_won_by_duncan(where):
    """Duncan Idaho (revived this turn, the BT's window still open) leads 8 Atreides tokens against 3
    Harkonnen tokens and wins; the BT hold a crysknife, so they are asked about their leader attack after."""
    state = position(forces={where: {A: 8, H: 3}}, dead={A: ATREIDES}, spice={A: 20}, hands={BT: [CRYSKNIFE]})
    state = at(state, Phase.MOVEMENT)
    state, _ = apply(state, Revive(faction=A, leader=DUNCAN))
    answers = {
        (A, PromptKind.BATTLE_PLAN): SubmitBattlePlan(faction=A, leader=DUNCAN, dial=1),
        (H, PromptKind.BATTLE_PLAN): SubmitBattlePlan(faction=H, leader="umman_kudu", dial=0),
        (A, PromptKind.TRAITOR_CALL): CallTraitor(faction=A, call=False),
        (H, PromptKind.TRAITOR_CALL): CallTraitor(faction=H, call=False),
    }
    state, events = drive(state, lambda s: any(p.kind == PromptKind.BT_ATTACK for p in s.prompts), answers)
    assert next(e for e in events if e.type == "battle_won").data["winner"] == A.value
    return state
