"""Bene Gesserit advisors and co-existence (A-15 `character_advantages`, 1979 optional rule XV; digest sections 3,
10, 11, 12).

The AH-era reading [E2]: the Bene Gesserit may declare their tokens in a territory neutral; co-existing, they are
"for all intents and purposes not on the board": they do not fight, collect, control (A-11) or count toward a
stronghold's occupants (R-38: a stronghold holding only advisors holds no tokens for a trap, R-11, and they do not
end BT control, BT-24, until they become fighters), and nothing targets them. So advisors live outside
`state.forces`, in `state.bg_advisors` (location -> count, public), and every rule reading the board ignores them
by construction. R-38: they go to the tanks with everything else wherever every token in a place is destroyed:
the storm and Shai-Hulud (engine/rules/forces.py `kill_advisors`), a lasgun/shield explosion in a battle, a BT attack or
a trap, a Karama trap, Family Atomics on the Shield Wall (engine/rules/forces.py `destroy_every_token`).

- Spiritual advisor (engine/phases/shipment.py): with the option, the Bene Gesserit may send the free token with
  the shipper's tokens, into the same location, already co-existing [E2], instead of to the Polar Sink (still
  their choice).
- Declaring (SetCoexistence): the digest gives no timing; we allow it in the Bene Gesserit's own turn of the
  movement round (while their shipment or movement decision is open), per territory, all their tokens there at
  once: fighters become advisors, or advisors become fighters (these arrive on the board like a shipment:
  refused into a stronghold already holding two other factions; a trap springs, BT control ends). Fighters a trap
  froze cannot become advisors that turn (R-24, our reading: it takes them off the board).
"""

from __future__ import annotations

from engine.actions import SetCoexistence
from engine.data import load_game_data
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog, EventType
from engine.factions.bene_tleilaxu import frozen_tokens
from engine.factions.bt_control import tokens_leave
from engine.ids import Faction
from engine.model import GameState, PromptKind
from engine.names import counted
from engine.phases.shipment import stronghold_full
from engine.rules.board import locations_of, territory_of
from engine.rules.forces import land

RULE = "A-15"
BG = Faction.BENE_GESSERIT


def coexistence_in_play(state: GameState) -> bool:
    return state.setup.options.character_advantages and state.in_game(BG)


def add_advisors(state: GameState, location: str, count: int) -> None:
    total = state.bg_advisors.get(location, 0) + count
    if total:
        state.bg_advisors[location] = total
    else:
        state.bg_advisors.pop(location, None)


def may_declare(state: GameState) -> bool:
    """In the Bene Gesserit's own turn of the movement round: their shipment or movement decision is open."""
    return coexistence_in_play(state) and any(
        p.kind in (PromptKind.SHIPMENT, PromptKind.MOVEMENT) for p in state.prompts_for(BG))


def declarable_territories(state: GameState, advisors: bool) -> list[str]:
    """Where the Bene Gesserit could turn their tokens into advisors (advisors True) or back into fighters: the
    checks of `declare_coexistence`, so that menus offer only what it accepts."""
    board = load_game_data().board
    if advisors:
        held = {board.location_territory(loc) for loc, here in state.forces.items() if BG in here}
        return sorted(t for t in held if not frozen_tokens(state, t, BG))  # frozen tokens stay fighters
    return sorted({board.location_territory(loc) for loc in state.bg_advisors
                   if not stronghold_full(state, BG, board.location_territory(loc))})


def declare_coexistence(state: GameState, action: SetCoexistence, log: EventLog) -> None:
    """SetCoexistence (its handler, engine/phases/movement.py, then asks the movement decision again)."""
    if not state.setup.options.character_advantages:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE, "Co-existence is a character advantage (option "
                            "character_advantages), which is off in this game.")
    if action.faction != BG:
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE, "Only the Bene Gesserit co-exist.")
    if not may_declare(state):
        raise RuleViolation(ViolationCode.WRONG_PHASE, RULE, "The Bene Gesserit declare co-existence in their own "
                            "turn of the movement round.")
    try:
        locations = locations_of(action.territory)
    except KeyError:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, f"There is no territory {action.territory!r}.",
                            declarable_territories(state, action.advisors)) from None
    if action.advisors:
        moved = {loc: n for loc in locations if (n := state.tokens_at(loc, BG))}
        if not moved:
            raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, f"You have no fighters in {action.territory}.",
                                declarable_territories(state, True))
        frozen = frozen_tokens(state, action.territory, BG)
        if frozen:  # R-24, our reading: off the board is a way of leaving, and would dodge a Karama trap (BT-50)
            raise RuleViolation(ViolationCode.NOT_ALLOWED, "R-24", f"{frozen} of your tokens in {action.territory} "
                                "sprang the Bene Tleilaxu trap and are frozen this turn: they cannot leave the board "
                                "as advisors (BT-31, R-24).")
        tokens_leave(state, action.territory, BG)  # like tokens moving out, they end a BT wait
        for loc, n in moved.items():
            state.add_tokens(loc, BG, -n)
            add_advisors(state, loc, n)
        log.public(EventType.BG_COEXIST, f"The Bene Gesserit in {action.territory} become advisors and co-exist "
                   f"({counted(sum(moved.values()), 'token')}, A-15).", territory=action.territory,
                   tokens=sum(moved.values()))
        return
    moved = {loc: n for loc in locations if (n := state.bg_advisors.get(loc, 0))}
    if not moved:
        raise RuleViolation(ViolationCode.ILLEGAL_CHOICE, RULE, f"You have no advisors in {action.territory}.",
                            declarable_territories(state, False))
    if stronghold_full(state, BG, territory_of(next(iter(moved)))):
        raise RuleViolation(ViolationCode.NOT_ALLOWED, RULE, f"{action.territory} already holds tokens of two other "
                            "factions; your advisors cannot become fighters there.")
    for loc, n in moved.items():
        add_advisors(state, loc, -n)
        land(state, BG, loc, n, log)
    log.public(EventType.BG_FIGHTERS, f"The Bene Gesserit advisors in {action.territory} become fighters "
               f"({counted(sum(moved.values()), 'token')}, A-15).", territory=action.territory,
               tokens=sum(moved.values()))
