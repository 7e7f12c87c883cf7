"""What a game is created with: its factions, its per-game options, its seed and any fixed values."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.ids import BASE_FACTIONS, Faction

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class GameOptions(BaseModel):
    """Per-game options. Defaults follow the rulings of shared/rules (A-n, BT-n)."""

    model_config = _FROZEN

    # The Bene Tleilaxu optional rules: on by default.
    bt_traps: bool = True  # BT-5, BT-30..BT-34
    bt_worthless_impairers: bool = True  # BT-16
    bt_give_cards: bool = True  # BT-40
    # Rulings on the base game.
    choam_charity: bool = False
    pass_is_final: bool = True
    max_alliance_size: int = Field(default=2, ge=2, le=7)
    alliance_strongholds_to_win: int = Field(default=4, ge=3, le=5)
    turns: int = Field(default=15, ge=1, le=30)
    # The 1979 optional and advanced rules: off by default.
    character_advantages: bool = False
    special_karama_powers: bool = False
    weather: bool = False
    double_spice_blow: bool = False
    advanced_combat: bool = False
    increased_spice_flow: bool = False

    @classmethod
    def all_on(cls) -> GameOptions:
        return cls(**{name: True for name, f in cls.model_fields.items() if f.annotation is bool})


class FixedSetup(BaseModel):
    """Values fixed instead of drawn, for exact scenario tests and for recreating a table game.

    Decks list their top cards first; cards not listed are shuffled beneath them.
    """

    model_config = _FROZEN

    treachery_deck: tuple[str, ...] = ()
    spice_deck: tuple[str, ...] = ()
    traitor_hands: dict[Faction, tuple[str, ...]] = Field(default_factory=dict)
    # The storm's sector at the start of turn 1; when set, the first-turn storm dial is skipped.
    storm_sector: int | None = Field(default=None, ge=1, le=18)
    # Which player dot (its sector) each faction sits at.
    dots: dict[Faction, int] = Field(default_factory=dict)


class GameSetup(BaseModel):
    model_config = _FROZEN

    factions: tuple[Faction, ...]
    options: GameOptions = Field(default_factory=GameOptions)
    seed: int = Field(default=0, ge=0)
    fixed: FixedSetup = Field(default_factory=FixedSetup)

    @model_validator(mode="after")
    def _check_factions(self) -> GameSetup:
        if len(set(self.factions)) != len(self.factions):
            raise ValueError("a faction is listed twice")
        if Faction.BENE_TLEILAXU in self.factions and len(self.factions) < 3:
            raise ValueError("BT-2: the Bene Tleilaxu join games of 3 to 7 players, not 2")
        base = [f for f in self.factions if f in BASE_FACTIONS]
        if not 2 <= len(base) <= 6:
            raise ValueError(f"a game needs 2 to 6 base factions, got {len(base)}")
        for faction in (*self.fixed.traitor_hands, *self.fixed.dots):
            if faction not in self.factions:
                raise ValueError(f"fixed values name {faction.value}, which is not in the game")
        return self

    @property
    def has_bt(self) -> bool:
        return Faction.BENE_TLEILAXU in self.factions
