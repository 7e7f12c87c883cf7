"""Static game data: the board, the factions and the card decks, read from data/*.json (DATA_DIR).

Every model is immutable and validated on load; bad data fails loudly with a DataError naming the file
and the problem instead of surfacing later as a wrong ruling. Rule references: A-n in
shared/rules/base-game.md, BT-n and R-n in shared/rules/bene-tleilaxu.md.

A place on the board is a *location*: "<Territory name>#<sector>" (e.g. "Arrakeen#9"), or exactly
"Polar Sink", which lies in no sector. Sectors run 1..18 counterclockwise; 18 is the Storm Start
Sector (A-17).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from engine.ids import CardCategory, Faction, TerritoryKind


def find_data_dir(engine_dir: Path) -> Path:
    """Where the JSON files are: engine/game_data in an installed package (pyproject.toml maps data/ there), else
    data/ at the top of the source tree."""
    installed = engine_dir / "game_data"
    return installed if installed.is_dir() else engine_dir.parent / "data"


DATA_DIR = find_data_dir(Path(__file__).resolve().parent)
SECTOR_COUNT = 18
POLAR_SINK = "Polar Sink"
STRONGHOLD_COUNT = 5

Sector = Annotated[int, Field(ge=1, le=SECTOR_COUNT)]
Slug = Annotated[str, Field(pattern=r"^[a-z0-9]+(?:_[a-z0-9]+)*$")]
Text = Annotated[str, Field(min_length=1)]


class DataError(ValueError):
    """A game data file is unreadable, invalid, or disagrees with another one."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def location_key(territory: str, sector: int | None) -> str:
    """The location string of `sector` in `territory`; the sectorless Polar Sink is just its name."""
    return territory if sector is None else f"{territory}#{sector}"


def _sector_of(location: str) -> int | None:
    """The sector written in a location key (None for the Polar Sink), without checking it exists."""
    _, _, sector = location.partition("#")
    return int(sector) if sector else None


def _sectors_touch(first: int, second: int) -> bool:
    """True when two sectors are the same or side by side on the (circular) board."""
    return (first - second) % SECTOR_COUNT in (0, 1, SECTOR_COUNT - 1)


def _is_arc(sectors: Iterable[int]) -> bool:
    """True when the sectors form one unbroken run around the circle (e.g. 18, 1, 2)."""
    present = set(sectors)
    run_ends = [sector for sector in present if sector % SECTOR_COUNT + 1 not in present]
    return len(run_ends) <= 1


_Value = TypeVar("_Value")


def _lookup(index: Mapping[str, _Value], key: str, what: str) -> _Value:
    try:
        return index[key]
    except KeyError:
        raise KeyError(f"unknown {what} {key!r}") from None


# --------------------------------------------------------------------------------------------- board


class SpiceBlowSite(_Frozen):
    sector: Sector
    amount: int = Field(gt=0)


class Territory(_Frozen):
    name: Text
    kind: TerritoryKind
    sectors: tuple[Sector, ...]
    adjacent: tuple[str, ...]
    protected_from_storm: bool
    ornithopters: bool
    spice_blow: SpiceBlowSite | None

    @model_validator(mode="after")
    def _check_shape(self) -> Self:
        where = f"territory {self.name!r}"
        if "#" in self.name:
            raise ValueError(f"{where}: '#' is reserved for location keys")
        if list(self.sectors) != sorted(set(self.sectors)):
            raise ValueError(f"{where}: sectors must be distinct and in ascending order")
        if (self.kind is TerritoryKind.POLAR_SINK) != (not self.sectors):
            raise ValueError(f"{where}: the Polar Sink, and only it, lies in no sector")
        if not _is_arc(self.sectors):
            raise ValueError(f"{where}: sectors {self.sectors} are not one unbroken run")
        if self.kind is TerritoryKind.STRONGHOLD and len(self.sectors) != 1:
            raise ValueError(f"{where}: a stronghold lies in exactly one sector")
        if self.kind is not TerritoryKind.SAND and not self.protected_from_storm:
            raise ValueError(f"{where}: only sand is exposed to the storm (A-2), not {self.kind}")
        if self.ornithopters and self.kind is not TerritoryKind.STRONGHOLD:
            raise ValueError(f"{where}: ornithopters belong to strongholds")
        if self.spice_blow is not None:
            if self.kind is not TerritoryKind.SAND:
                raise ValueError(f"{where}: spice blows only on sand, but this is {self.kind}")
            if self.spice_blow.sector not in self.sectors:
                raise ValueError(f"{where}: spice blow sector {self.spice_blow.sector} not in {self.sectors}")
        if self.name in self.adjacent or len(set(self.adjacent)) != len(self.adjacent):
            raise ValueError(f"{where}: adjacency lists itself or a neighbour twice")
        return self

    @property
    def locations(self) -> tuple[str, ...]:
        """Its location keys in sector order; ("Polar Sink",) for the sink."""
        if not self.sectors:
            return (self.name,)
        return tuple(location_key(self.name, sector) for sector in self.sectors)

    @property
    def is_stronghold(self) -> bool:
        return self.kind is TerritoryKind.STRONGHOLD


class Board(_Frozen):
    territories: dict[str, Territory]
    location_edges: tuple[tuple[str, str], ...]
    player_dot_sectors: tuple[Sector, ...]
    storm_start_sector: Sector
    fremen_shipping_territories: tuple[str, ...]
    shield_wall_protected: tuple[str, ...]

    # Indexes built once at validation; movement code asks for neighbours constantly.
    _location_territory: dict[str, str] = PrivateAttr()
    _neighbours: dict[str, tuple[str, ...]] = PrivateAttr()
    _strongholds: tuple[str, ...] = PrivateAttr()

    @field_validator("territories", mode="before")
    @classmethod
    def _index_by_name(cls, value: Any) -> Any:
        """The file lists territories; index them by name, refusing a name given twice."""
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            return value  # not the file's shape: let the field's own validation report it
        names = [item.get("name") for item in value]
        twice = sorted({str(name) for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"territories listed twice: {twice}")
        return dict(zip(names, value, strict=True))

    @model_validator(mode="after")
    def _check_board(self) -> Self:
        for key, territory in self.territories.items():
            if key != territory.name:
                raise ValueError(f"territory {territory.name!r} is filed under {key!r}")
        self._check_kinds()
        self._check_named_lists()
        self._check_adjacency()
        self._index_locations()
        return self

    def _check_kinds(self) -> None:
        self._strongholds = tuple(name for name, territory in self.territories.items() if territory.is_stronghold)
        sinks = [t.name for t in self.territories.values() if t.kind is TerritoryKind.POLAR_SINK]
        if sinks != [POLAR_SINK]:
            raise ValueError(f"expected exactly one polar sink named {POLAR_SINK!r}, found {sinks}")
        if len(self.strongholds) != STRONGHOLD_COUNT:
            raise ValueError(f"expected {STRONGHOLD_COUNT} strongholds, found {list(self.strongholds)}")
        covered = {sector for territory in self.territories.values() for sector in territory.sectors}
        uncovered = set(range(1, SECTOR_COUNT + 1)) - covered
        if uncovered:
            raise ValueError(f"sectors without any territory: {sorted(uncovered)}")
        if len(set(self.player_dot_sectors)) != len(self.player_dot_sectors):
            raise ValueError(f"player dots share a sector: {self.player_dot_sectors}")
        for territory in self.territories.values():
            # Sand is exposed to the storm except where the Shield Wall shelters it (Imperial Basin).
            sheltered_sand = territory.kind is TerritoryKind.SAND and territory.protected_from_storm
            if sheltered_sand and territory.name not in self.shield_wall_protected:
                raise ValueError(f"sand territory {territory.name!r} is protected but not by the Shield Wall")

    def _check_named_lists(self) -> None:
        for list_name in ("fremen_shipping_territories", "shield_wall_protected"):
            names = getattr(self, list_name)
            unknown = [name for name in names if name not in self.territories]
            if unknown or len(set(names)) != len(names):
                raise ValueError(f"{list_name}: unknown or repeated territories in {list(names)}")
        exposed = [n for n in self.shield_wall_protected if not self.territories[n].protected_from_storm]
        if exposed:
            raise ValueError(f"shield_wall_protected lists territories the storm already reaches: {exposed}")

    def _check_adjacency(self) -> None:
        for territory in self.territories.values():
            for other in territory.adjacent:
                if other not in self.territories:
                    raise ValueError(f"territory {territory.name!r} lists unknown neighbour {other!r}")
                if territory.name not in self.territories[other].adjacent:
                    raise ValueError(
                        f"adjacency is not symmetric: {territory.name!r} lists {other!r}"
                        f" but {other!r} does not list {territory.name!r}"
                    )

    def _index_locations(self) -> None:
        """Check the sector-level edges against the territories and keep them as neighbour lists."""
        owner = {loc: t.name for t in self.territories.values() for loc in t.locations}
        neighbours: dict[str, set[str]] = {loc: set() for loc in owner}
        linked: set[frozenset[str]] = set()
        for first, second in self.location_edges:
            edge = f"location edge {first!r}-{second!r}"
            unknown = [loc for loc in (first, second) if loc not in owner]
            if unknown:
                raise ValueError(f"{edge}: unknown location {unknown[0]!r}")
            if first == second or second in neighbours[first]:
                raise ValueError(f"{edge}: a loop or given twice")
            sectors = [_sector_of(loc) for loc in (first, second)]
            known = [sector for sector in sectors if sector is not None]  # the Polar Sink has no sector to check
            if len(known) == 2 and not _sectors_touch(*known):
                raise ValueError(f"{edge}: sectors {sectors} are not side by side")
            neighbours[first].add(second)
            neighbours[second].add(first)
            first_territory, second_territory = owner[first], owner[second]
            if first_territory != second_territory:
                if second_territory not in self.territories[first_territory].adjacent:
                    raise ValueError(f"{edge}: {first_territory!r} and {second_territory!r} are not adjacent")
                linked.add(frozenset((first_territory, second_territory)))
        for territory in self.territories.values():
            for other in territory.adjacent:
                if frozenset((territory.name, other)) not in linked:
                    raise ValueError(f"no location edge joins adjacent {territory.name!r} and {other!r}")
            _check_connected(territory, neighbours)
        order = {loc: position for position, loc in enumerate(owner)}
        self._location_territory = owner
        self._neighbours = {loc: tuple(sorted(near, key=order.__getitem__)) for loc, near in neighbours.items()}

    def territory(self, name: str) -> Territory:
        return _lookup(self.territories, name, "territory")

    @property
    def strongholds(self) -> tuple[str, ...]:
        return self._strongholds

    def location_territory(self, location: str) -> str:
        return _lookup(self._location_territory, location, "location ('Territory#sector' or 'Polar Sink')")

    def location_sector(self, location: str) -> int | None:
        """The location's sector, or None for the Polar Sink."""
        self.location_territory(location)
        return _sector_of(location)

    def location_neighbours(self, location: str) -> tuple[str, ...]:
        """Locations one step away, inside the same territory or across a border, in board order."""
        self.location_territory(location)
        return self._neighbours[location]

    def all_locations(self) -> tuple[str, ...]:
        return tuple(self._location_territory)

    def default_location(self, territory: str) -> str:
        """Where tokens go when no sector is named: the territory's first sector (a stronghold's only one)."""
        return self.territory(territory).locations[0]


def _check_connected(territory: Territory, neighbours: Mapping[str, set[str]]) -> None:
    """Moving between sectors of one territory is free (A-17), so they must form one connected piece."""
    own = set(territory.locations)
    reached = {territory.locations[0]}
    frontier = [territory.locations[0]]
    while frontier:
        for near in neighbours[frontier.pop()] & (own - reached):
            reached.add(near)
            frontier.append(near)
    if reached != own:
        raise ValueError(f"territory {territory.name!r}: no location edge reaches {sorted(own - reached)}")


# ------------------------------------------------------------------------------------------ factions


class Leader(_Frozen):
    id: Slug
    name: Text
    strength: int = Field(ge=1)
    faction: Faction
    pronoun: Literal["he", "she"]  # how the words the players read refer to the leader


class StartChoice(_Frozen):
    """Starting tokens the faction spreads as it likes over the listed territories (the Fremen)."""

    tokens: int = Field(gt=0)
    territories: tuple[str, ...] = Field(min_length=1)


class FactionData(_Frozen):
    id: Faction
    name: Text
    leaders: tuple[Leader, ...]
    tokens_total: int = Field(ge=0)
    special_tokens: int = Field(ge=0)
    start_on_board: dict[str, Annotated[int, Field(gt=0)]]
    start_choice: StartChoice | None
    start_reserve: int = Field(ge=0)
    starting_spice: int = Field(ge=0)
    free_revival: int = Field(ge=0)
    traitors_kept: int = Field(ge=0)
    hand_limit: int = Field(ge=1)
    starting_treachery_cards: int = Field(ge=0)
    has_dot: bool
    karama_can_block: tuple[Text, ...]
    advantages: tuple[Text, ...]

    @model_validator(mode="after")
    def _check_faction(self) -> Self:
        where = f"faction {self.id}"
        strays = [leader.id for leader in self.leaders if leader.faction is not self.id]
        if strays:
            raise ValueError(f"{where}: leaders {strays} belong to another faction")
        placed = sum(self.start_on_board.values()) + (self.start_choice.tokens if self.start_choice else 0)
        if placed + self.start_reserve != self.tokens_total:
            raise ValueError(
                f"{where}: {placed} tokens on the board + {self.start_reserve} in reserve"
                f" != {self.tokens_total} tokens in all"
            )
        if self.special_tokens > self.tokens_total:
            raise ValueError(f"{where}: more special tokens than tokens")
        if self.starting_treachery_cards > self.hand_limit:
            raise ValueError(f"{where}: starts with more treachery cards than its hand limit")
        return self


# --------------------------------------------------------------------------------------------- cards


class TreacheryCard(_Frozen):
    id: Slug
    name: Text
    category: CardCategory
    effect: Text


class SpiceCard(_Frozen):
    id: Slug
    territory: str | None
    sector: Sector | None
    amount: int = Field(ge=0)

    @model_validator(mode="after")
    def _check_kind(self) -> Self:
        if self.is_worm and (self.sector is not None or self.amount != 0):
            raise ValueError(f"spice card {self.id!r}: a Shai-Hulud card has no sector and no spice")
        if not self.is_worm and (self.sector is None or self.amount == 0):
            raise ValueError(f"spice card {self.id!r}: a territory card needs a sector and some spice")
        return self

    @property
    def is_worm(self) -> bool:
        return self.territory is None


# ---------------------------------------------------------------------------------------- game data


class GameData(_Frozen):
    board: Board
    factions: dict[Faction, FactionData]
    treachery_cards: tuple[TreacheryCard, ...]
    spice_cards: tuple[SpiceCard, ...]

    _leaders: dict[str, Leader] = PrivateAttr()
    _cards: dict[str, TreacheryCard] = PrivateAttr()
    _spice_cards: dict[str, SpiceCard] = PrivateAttr()

    @model_validator(mode="after")
    def _check_across_files(self) -> Self:
        misfiled = [str(key) for key, faction in self.factions.items() if key is not faction.id]
        missing = [str(faction) for faction in Faction if faction not in self.factions]
        if misfiled or missing:
            raise ValueError(f"factions.json: misfiled {misfiled}, missing {missing}")
        for faction in self.factions.values():
            choice = faction.start_choice.territories if faction.start_choice else ()
            starts = (*faction.start_on_board, *choice)
            unknown = [name for name in starts if name not in self.board.territories]
            if unknown:
                raise ValueError(f"factions.json: {faction.id} starts in {unknown}, unknown to board.json")
        leaders = [leader for faction in self.factions.values() for leader in faction.leaders]
        self._leaders = _unique_index(leaders, "factions.json: leader id")
        self._cards = _unique_index(self.treachery_cards, "cards.json: treachery card id")
        self._spice_cards = _unique_index(self.spice_cards, "cards.json: spice card id")
        self._check_spice_deck_matches_board()
        return self

    def _check_spice_deck_matches_board(self) -> None:
        blows = {name: t.spice_blow for name, t in self.board.territories.items() if t.spice_blow is not None}
        carded: set[str] = set()
        for card in self.spice_cards:
            if card.territory is None:
                continue
            site = blows.get(card.territory)
            if site is None or (site.sector, site.amount) != (card.sector, card.amount):
                raise ValueError(
                    f"cards.json: spice card {card.id!r} (sector {card.sector}, {card.amount} spice)"
                    f" does not match the spice blow board.json puts in {card.territory!r}: {site}"
                )
            if card.territory in carded:
                raise ValueError(f"cards.json: two spice cards for {card.territory!r}")
            carded.add(card.territory)
        if uncarded := sorted(blows.keys() - carded):
            raise ValueError(f"board.json: spice blows without a spice card: {uncarded}")

    def leader(self, leader_id: str) -> Leader:
        return _lookup(self._leaders, leader_id, "leader")

    def card(self, card_id: str) -> TreacheryCard:
        return _lookup(self._cards, card_id, "treachery card")

    def spice_card(self, card_id: str) -> SpiceCard:
        return _lookup(self._spice_cards, card_id, "spice card")

    def traitor_deck(self, factions: Iterable[Faction]) -> tuple[str, ...]:
        """One traitor card per leader of the factions in play, in data order; the BT have none (BT-1)."""
        in_play = set(factions)
        playing = [faction for faction in self.factions.values() if faction.id in in_play]
        return tuple(leader.id for faction in playing for leader in faction.leaders)


_Item = TypeVar("_Item", Leader, TreacheryCard, SpiceCard)


def _unique_index(items: Iterable[_Item], what: str) -> dict[str, _Item]:
    index: dict[str, _Item] = {}
    for item in items:
        if item.id in index:
            raise ValueError(f"{what} {item.id!r} is used twice")
        index[item.id] = item
    return index


# ------------------------------------------------------------------------------------------- loading


class _BoardFile(Board):
    source: Text


class _FactionsFile(_Frozen):
    source: Text
    factions: tuple[FactionData, ...]

    @model_validator(mode="after")
    def _check_each_faction_once(self) -> Self:
        ids = [faction.id for faction in self.factions]
        if twice := sorted({str(faction) for faction in ids if ids.count(faction) > 1}):
            raise ValueError(f"factions listed twice: {twice}")
        return self


class _CardsFile(_Frozen):
    source: Text
    treachery_cards: tuple[TreacheryCard, ...]
    spice_cards: tuple[SpiceCard, ...]


_File = TypeVar("_File", _BoardFile, _FactionsFile, _CardsFile)


def _read(path: Path, model: type[_File]) -> _File:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: cannot read game data: {exc}") from exc
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise DataError(f"{path}: invalid game data:\n{exc}") from exc


def load_game_data(path: Path | None = None) -> GameData:
    """Load board.json, factions.json and cards.json from the directory `path` (default: data/).

    The default data is loaded once and cached; another directory is read afresh on every call.
    """
    if path is None:
        return _load_default_game_data()
    return _load(Path(path))


@lru_cache(maxsize=1)
def _load_default_game_data() -> GameData:
    return _load(DATA_DIR)


def _load(directory: Path) -> GameData:
    board = _read(directory / "board.json", _BoardFile)
    factions = _read(directory / "factions.json", _FactionsFile).factions
    cards = _read(directory / "cards.json", _CardsFile)
    try:
        return GameData(
            board=board,
            factions={faction.id: faction for faction in factions},
            treachery_cards=cards.treachery_cards,
            spice_cards=cards.spice_cards,
        )
    except ValidationError as exc:
        raise DataError(f"{directory}: the game data files disagree:\n{exc}") from exc
