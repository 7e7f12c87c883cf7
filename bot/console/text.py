"""Plain text for the console, built from engine views only (engine.secrecy.views.view), so it shows nobody a secret
that is not theirs: the table's view has no `own` part, and a faction's view has only its own."""

from __future__ import annotations

import json
from collections.abc import Callable

from bot.app.render import secret_facts
from engine.model import Prompt
from engine.names import card_name, faction_name, leader_name, location_label
from engine.secrecy.views import PlayerView

MAX_CHOICES_SHOWN = 40


def _named(name: Callable[[str], str], key: str) -> str:
    try:
        return name(key)
    except KeyError:
        return key


def _cards(cards: list[str]) -> str:
    return ", ".join(f"{_named(card_name, c)} ({c})" for c in cards) or "none"


def _leaders(leaders: list[str]) -> str:
    return ", ".join(_named(leader_name, leader) for leader in leaders) or "none"


def _kind(prompt_kind: str) -> str:
    return prompt_kind.replace("_", " ")


def format_view(pv: PlayerView) -> str:
    """The board as `pv` shows it, then (for a faction's view) that faction's own secrets and decisions."""
    lines = [f"Turn {pv.turn}, phase {pv.phase.value}. Storm at sector {pv.storm_sector}.",
             "Turn order: " + ", ".join(faction_name(f) for f in pv.turn_order) + ".", "Factions:"]
    for fp in pv.factions:
        dot = f"dot {fp.dot}" if fp.dot is not None else "no dot"
        extra = f"  bribes {fp.bribes}" if fp.bribes else ""
        extra += f"  leaders in tanks: {_leaders(fp.leaders_in_tanks)}" if fp.leaders_in_tanks else ""
        lines.append(f"  {faction_name(fp.faction):<15} {dot:<7} reserves {fp.reserves:>2}  tanks {fp.tanks:>2}  "
                     f"cards {fp.hand_size}{extra}")
    lines.append("Tokens on Arrakis:")
    for location, here in sorted(pv.forces.items()):
        lines.append(f"  {_named(location_label, location)}: "
                     + ", ".join(f"{faction_name(f)} {n}" for f, n in here.items()))
    if pv.spice_on_board:
        lines.append("Spice on Arrakis: " + ", ".join(
            f"{_named(location_label, loc)} {amount}" for loc, amount in sorted(pv.spice_on_board.items())) + ".")
    if pv.traps:
        lines.append("Bene Tleilaxu traps (face down): " + ", ".join(
            t.stronghold + (f" (sprung by {faction_name(t.triggered_by)})" if t.triggered_by else "")
            for t in pv.traps) + ".")
    if pv.bt_controlled:
        lines.append("Controlled by the Bene Tleilaxu (BT-24): " + ", ".join(pv.bt_controlled) + ".")
    if pv.bt_open_spice:
        lines.append(f"Bene Tleilaxu spice in open view (BT-27): {pv.bt_open_spice}.")
    if pv.battle:
        b = pv.battle
        lines.append(f"Battle in {b.territory}: {faction_name(b.aggressor)} against {faction_name(b.defender)} "
                     f"(step {b.step}).")
        for faction, plan in b.revealed_plans.items():
            lines.append(f"  {faction_name(faction)} plan: {plan.model_dump_json()}")
    if pv.treachery_discard:
        lines.append("Treachery discard: " + _cards(pv.treachery_discard) + ".")
    if pv.awaiting:
        lines.append("Waiting for: " + ", ".join(
            f"{faction_name(a.faction)} ({_kind(a.kind.value)}, {a.prompt_id})" for a in pv.awaiting) + ".")
    if pv.winners:
        lines.append("Winners: " + ", ".join(faction_name(f) for f in pv.winners) + ".")
    if pv.own is not None and pv.viewer is not None:
        lines += [f"Your secrets ({faction_name(pv.viewer)}):", f"  spice {pv.own.spice}"]
        lines += [f"  {label}: {value}" for label, value in secret_facts(pv.own, with_ids=True)]
        lines.append("Your open decisions: " + (", ".join(f"{p.id} ({_kind(p.kind.value)})" for p in pv.own_prompts)
                                                 or "none") + ".")
    return "\n".join(lines)


def format_prompt(prompt: Prompt) -> str:
    """One open decision with its choices and limits, as its owner sees it (`own_prompts`)."""
    flags = ["secret" if prompt.secret else "public"] + ([] if prompt.blocking else ["the game goes on"])
    lines = [f"{prompt.id}  {_kind(prompt.kind.value)} ({', '.join(flags)})"]
    if prompt.options:
        shown = ", ".join(prompt.options[:MAX_CHOICES_SHOWN])
        hidden = len(prompt.options) - MAX_CHOICES_SHOWN
        more = f" ... and {hidden} more" if hidden > 0 else ""
        lines.append(f"    choices: {shown}{more}")
    if prompt.detail:
        lines.append(f"    detail: {json.dumps(prompt.detail, default=str)}")
    return "\n".join(lines)
