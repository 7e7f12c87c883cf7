"""Plain-text reports built from views and visible events only, so they can never show a secret."""

from __future__ import annotations

from engine.events import Event
from engine.names import faction_name, location_label, table_decision_name
from engine.secrecy.views import PlayerView


def table_report(view: PlayerView, events: list[Event]) -> str:
    """What the whole table may read: the public events so far and the board as it stands."""
    if view.viewer is not None:
        raise ValueError("the table report is built from the table's view (viewer None)")
    lines = ["Public events:"]
    lines += [f"  - {e.message}" for e in events if e.public]
    lines.append("")
    lines.append(f"Turn {view.turn}, phase {view.phase.value}. Storm at sector {view.storm_sector}.")
    lines.append("Turn order: " + ", ".join(faction_name(f) for f in view.turn_order) + ".")
    lines.append("Factions:")
    for fp in view.factions:
        dot = f"dot {fp.dot}" if fp.dot is not None else "no dot"
        lines.append(
            f"  {faction_name(fp.faction):<15} {dot:<7} reserves {fp.reserves:>2}  tanks {fp.tanks:>2}  "
            f"cards {fp.hand_size}"
        )
    lines.append("Tokens on Arrakis:")
    for location, here in sorted(view.forces.items()):
        lines.append(f"  {location_label(location)}: " + ", ".join(f"{faction_name(f)} {n}" for f, n in here.items()))
    if view.traps:
        lines.append("Bene Tleilaxu traps (face down): " + ", ".join(
            t.stronghold + (f" (sprung by {faction_name(t.triggered_by)})" if t.triggered_by else "")
            for t in view.traps
        ) + ".")
    if view.bt_controlled:
        lines.append("Controlled by the Bene Tleilaxu (BT-24): " + ", ".join(view.bt_controlled) + ".")
    if view.bt_open_spice:
        lines.append(f"Bene Tleilaxu spice in open view (BT-27): {view.bt_open_spice}.")
    if view.awaiting:
        lines.append("Waiting for: " + ", ".join(
            f"{faction_name(a.faction)} ({'a secret decision' if a.secret else table_decision_name(a.kind)})"
            for a in view.awaiting
        ) + ".")
    return "\n".join(lines)
