"""The shape of a position document (docs/positions.md): a game at a moment, as JSON.

Every key but `format` and `factions` may be left out and then takes its default (engine/positions/documents.py says
which); a faction left out of a per-faction map takes that map's default. Sub-states the engine already
models (the auction, the battle, prompts...) are written in the engine's own models rather than restated.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.ids import Faction
from engine.model import (
    AdvisorOrder,
    BattleState,
    BattleVictory,
    BiddingState,
    BidOrder,
    BtState,
    KaramaOrder,
    KwisatzHaderach,
    MovementState,
    NexusState,
    Phase,
    Prediction,
    Prompt,
    SpecialKaramaOrder,
    SpiceBlowState,
    StormCardPlay,
    Trap,
)
from engine.options import FixedSetup, GameOptions

FORMAT = "mentat-position/1"

Count = Annotated[int, Field(ge=0)]
Positive = Annotated[int, Field(gt=0)]
Sector = Annotated[int, Field(ge=1, le=18)]


class Position(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["mentat-position/1"]
    # The game: who plays, with which options, from which seed (the seed shuffles the decks' unstated cards).
    factions: list[Faction] = Field(min_length=2)
    options: GameOptions = Field(default_factory=GameOptions)
    seed: Count = 0
    fixed: FixedSetup = Field(default_factory=FixedSetup)  # the values the game was created with
    # The moment.
    seq: Count = 0
    turn: Count | None = None
    phase: Phase = Phase.STORM
    step: str = ""
    winners: list[Faction] = Field(default_factory=list)
    # The board: location ("Territory#sector" or "Polar Sink") -> faction -> tokens.
    storm: Sector | None = None
    shield_wall_destroyed: bool = False
    forces: dict[str, dict[Faction, Positive]] = Field(default_factory=dict)
    elites: dict[str, dict[Faction, Positive]] = Field(default_factory=dict)  # Sardaukar, Fedaykin
    advisors: dict[str, Positive] = Field(default_factory=dict)  # Bene Gesserit advisors
    spice_on_board: dict[str, Positive] = Field(default_factory=dict)
    # Each faction (reserves follow: the faction's tokens less those on the board and in the tanks).
    dots: dict[Faction, Sector] = Field(default_factory=dict)
    spice: dict[Faction, Count] = Field(default_factory=dict)
    bribes: dict[Faction, Count] = Field(default_factory=dict)
    tanks: dict[Faction, Count] = Field(default_factory=dict)
    elite_tanks: dict[Faction, Count] = Field(default_factory=dict)
    elite_revived_turn: dict[Faction, int] = Field(default_factory=dict)
    revived_turn: dict[Faction, int] = Field(default_factory=dict)  # the turn of each faction's last revival
    dead_leaders: dict[Faction, list[str]] = Field(default_factory=dict)
    hands: dict[Faction, list[str]] = Field(default_factory=dict)
    traitors: dict[Faction, list[str]] = Field(default_factory=dict)
    bid_orders: dict[Faction, BidOrder] = Field(default_factory=dict)
    auto_traitor: list[Faction] = Field(default_factory=list)
    never_storm_cards: list[Faction] = Field(default_factory=list)  # the standing order "no storm card"
    nexus_done_at_once: list[Faction] = Field(default_factory=list)  # the standing order "done at once"
    pass_when_outbid: list[Faction] = Field(default_factory=list)  # the standing order "pass when outbid"
    revive_free_tokens: list[Faction] = Field(default_factory=list)  # the standing order "free tokens"
    guild_timing_in_storm_order: bool = False  # the Guild's standing order "in storm order"
    advisor_order: AdvisorOrder = "ask"  # the Bene Gesserit's standing order for the spiritual advisor
    # The cards. A deck lists its top cards, top first; the cards found nowhere else lie beneath, shuffled by the
    # seed. A discard pile lists its cards in the order they were discarded (the top last).
    treachery_deck: list[str] = Field(default_factory=list)
    treachery_discard: list[str] = Field(default_factory=list)
    removed_cards: list[str] = Field(default_factory=list)
    spice_deck: list[str] = Field(default_factory=list)
    spice_discard: list[str] = Field(default_factory=list)
    spice_discard_b: list[str] = Field(default_factory=list)
    traitor_deck: list[str] | None = None  # the traitor cards dealt to nobody
    # Secrets and powers.
    prediction: Prediction | None = None
    traps: dict[str, Trap] = Field(default_factory=dict)
    alliances: list[list[Faction]] = Field(default_factory=list)
    bt: BtState | None = None
    karama_orders: list[KaramaOrder] = Field(default_factory=list)
    special_karama_used: list[Faction] = Field(default_factory=list)
    special_karama_orders: list[SpecialKaramaOrder] = Field(default_factory=list)
    kwisatz_haderach: KwisatzHaderach = Field(default_factory=KwisatzHaderach)
    captured: dict[str, Faction] = Field(default_factory=dict)
    victories: list[BattleVictory] = Field(default_factory=list)
    # The bookkeeping of the step in progress.
    storm_dials: dict[Faction, int] = Field(default_factory=dict)
    storm_forecast: dict[Faction, int] = Field(default_factory=dict)
    storm_card_plays: dict[Faction, StormCardPlay] = Field(default_factory=dict)
    bidding: BiddingState | None = None
    movement: MovementState | None = None
    nexus: NexusState | None = None
    battle: BattleState | None = None
    spice_blow: SpiceBlowState | None = None
    # Open decisions.
    prompts: list[Prompt] = Field(default_factory=list)
    next_prompt_number: Positive | None = None
    # Randomness: the generator's state, and fixed outcomes for named draws (engine/rng.py `draw`).
    rng: Count | None = None
    draws: dict[str, list[str]] = Field(default_factory=dict)
