"""Events: what happened, in words and data, and who may learn it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.ids import Faction

# How a private line begins when a standing order answered a decision for its owner (storm cards, traitor calls,
# bids, a move waived with the shipment): the owner alone reads it; the table reads what a click would have made.
BY_STANDING_ORDER = "By your standing order"


class Event(BaseModel):
    """One thing that happened. `audience` None means the whole table; otherwise only those factions."""

    model_config = ConfigDict(frozen=True)

    type: str
    message: str
    audience: tuple[Faction, ...] | None = None
    data: dict[str, Any] = Field(default_factory=dict)

    @property
    def public(self) -> bool:
        return self.audience is None

    def visible_to(self, viewer: Faction | None) -> bool:
        """The table (viewer None) sees public events only; a faction also sees those addressed to it."""
        return self.audience is None or (viewer is not None and viewer in self.audience)


class EventLog:
    """Collects the events of one action, in order."""

    def __init__(self) -> None:
        self.items: list[Event] = []

    def public(self, type_: str, message: str, **data: Any) -> None:
        self.items.append(Event(type=type_, message=message, data=data))

    def private(self, type_: str, audience: Faction | tuple[Faction, ...], message: str, **data: Any) -> None:
        factions = (audience,) if isinstance(audience, Faction) else tuple(audience)
        self.items.append(Event(type=type_, message=message, audience=factions, data=data))


def visible_events(events: list[Event], viewer: Faction | None) -> list[Event]:
    return [e for e in events if e.visible_to(viewer)]
