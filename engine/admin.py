"""Admin corrections: actions like any other, logged with who made them and why, shown to the table."""

from __future__ import annotations

from engine.actions import ForceDefault, SetSpice
from engine.errors import RuleViolation, ViolationCode
from engine.events import EventLog
from engine.flow import DEFAULTS, HANDLERS, handles
from engine.model import GameState
from engine.names import faction_name


@handles(ForceDefault)
def force_default(state: GameState, action: ForceDefault, log: EventLog) -> None:
    prompt = state.prompt(action.prompt_id)
    if prompt is None:
        raise RuleViolation(
            ViolationCode.NO_OPEN_DECISION, "Admin",
            f"There is no open decision {action.prompt_id!r}.", [p.id for p in state.prompts],
        )
    log.public(
        "admin_forced_default",
        f"Admin {action.admin} applied the default for {faction_name(prompt.faction)}'s "
        f"{prompt.kind.value.replace('_', ' ')} ({action.reason}).",
        admin=action.admin, reason=action.reason, prompt=prompt.id, faction=prompt.faction.value,
    )
    default = DEFAULTS[prompt.kind](state, prompt)
    HANDLERS[default.type](state, default, log)


@handles(SetSpice)
def set_spice(state: GameState, action: SetSpice, log: EventLog) -> None:
    if not state.in_game(action.faction):
        raise RuleViolation(ViolationCode.NOT_IN_GAME, "Admin", f"{action.faction.value} is not in this game.",
                            [f.value for f in state.factions])
    # Spice behind a shield is secret: the table learns of the correction, the faction learns the amount.
    fs = state.faction(action.faction)
    state.spice_outside_bank += action.amount - fs.spice  # the difference comes from or goes to the bank
    fs.spice = action.amount
    log.public(
        "admin_set_spice",
        f"Admin {action.admin} corrected {faction_name(action.faction)}'s spice ({action.reason}).",
        admin=action.admin, reason=action.reason, faction=action.faction.value,
    )
    log.private("admin_set_spice_amount", action.faction,
                f"Your spice was set to {action.amount} by admin {action.admin}.", amount=action.amount)
