"""Every player decision and every admin correction, as typed actions (a union on `type`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine.ids import Faction

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class PlayerAction(BaseModel):
    """An action a seated faction takes."""

    model_config = _FROZEN
    faction: Faction


class AdminAction(BaseModel):
    """A correction by a moderator: logged, attributed and shown to the table with its reason."""

    model_config = _FROZEN
    admin: str = Field(min_length=1)
    reason: str = Field(min_length=1)


# --- setup -----------------------------------------------------------------------------------


class ChooseTraitor(PlayerAction):
    type: Literal["choose_traitor"] = "choose_traitor"
    leader: str


class PredictWinner(PlayerAction):
    type: Literal["predict_winner"] = "predict_winner"
    predicted: Faction
    turn: int


class LayTraps(PlayerAction):
    """BT-30: stronghold -> card id from the BT hand. Empty means no trap."""

    type: Literal["lay_traps"] = "lay_traps"
    traps: dict[str, str] = Field(default_factory=dict)


class PlaceStartingTokens(PlayerAction):
    """The Fremen split of their starting tokens, or (with character advantages) the BG token."""

    type: Literal["place_starting_tokens"] = "place_starting_tokens"
    placement: dict[str, int]


# --- admin -----------------------------------------------------------------------------------


class ForceDefault(AdminAction):
    """Apply an open prompt's declared default on behalf of the faction that owes it."""

    type: Literal["force_default"] = "force_default"
    prompt_id: str


class SetSpice(AdminAction):
    type: Literal["set_spice"] = "set_spice"
    faction: Faction
    amount: int = Field(ge=0)


Action = Annotated[
    ChooseTraitor | PredictWinner | LayTraps | PlaceStartingTokens | ForceDefault | SetSpice,
    Field(discriminator="type"),
]

ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
ACTION_LIST_ADAPTER: TypeAdapter[list[Action]] = TypeAdapter(list[Action])


def parse_action(raw: dict | str) -> Action:
    """Validate a JSON object (or text) as one action."""
    if isinstance(raw, str):
        return ACTION_ADAPTER.validate_json(raw)
    return ACTION_ADAPTER.validate_python(raw)
