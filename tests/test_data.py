"""Game data tests. Sources: shared/rules/data/*.json (board, factions, cards: AH 1979 facts),
rulings A-n in shared/rules/base-game.md, BT-n / R-n in shared/rules/bene-tleilaxu.md."""

from __future__ import annotations

import json
import shutil
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.data import DATA_DIR, DataError, GameData, load_game_data
from engine.ids import BASE_FACTIONS, CardCategory, Faction, TerritoryKind

Raw = dict[str, Any]  # a data file as parsed JSON


@pytest.fixture(scope="module")
def game() -> GameData:
    return load_game_data()


# ------------------------------------------------------------------------------------------ board


def test_board_has_42_territories_and_the_5_strongholds(game: GameData) -> None:
    """board.json: 42 territories; strongholds list Arrakeen, Carthag and the three sietches."""
    assert len(game.board.territories) == 42
    assert set(game.board.strongholds) == {
        "Arrakeen",
        "Carthag",
        "Tuek's Sietch",
        "Sietch Tabr",
        "Habbanya Sietch",
    }
    assert all(game.board.territory(name).kind is TerritoryKind.STRONGHOLD for name in game.board.strongholds)


def test_sectors_1_to_18_are_all_on_the_board_and_18_is_storm_start(game: GameData) -> None:
    """A-17: sectors 1..18 counterclockwise, 18 the Storm Start Sector; only the Polar Sink is sectorless."""
    covered = {sector for t in game.board.territories.values() for sector in t.sectors}
    assert covered == set(range(1, 19))
    assert game.board.storm_start_sector == 18
    sectorless = [t.name for t in game.board.territories.values() if not t.sectors]
    assert sectorless == ["Polar Sink"]


def test_player_dots_sit_at_every_third_sector(game: GameData) -> None:
    """A-4: the six player dots are at sectors 18, 3, 6, 9, 12, 15."""
    assert game.board.player_dot_sectors == (18, 3, 6, 9, 12, 15)


def test_territory_adjacency_is_symmetric(game: GameData) -> None:
    """board.json territories[].adjacent: a border is shared by both sides."""
    for territory in game.board.territories.values():
        for other in territory.adjacent:
            assert territory.name in game.board.territory(other).adjacent, (territory.name, other)


def test_location_edges_cross_exactly_the_territory_borders(game: GameData) -> None:
    """board.json sector_adjacency: the sector-level graph, collapsed to territories, is the adjacency."""
    board = game.board
    crossed = {
        frozenset((board.location_territory(a), board.location_territory(b)))
        for a, b in board.location_edges
        if board.location_territory(a) != board.location_territory(b)
    }
    declared = {frozenset((t.name, other)) for t in board.territories.values() for other in t.adjacent}
    assert crossed == declared
    assert len(board.location_edges) == 190


def test_location_keys_and_neighbours(game: GameData) -> None:
    """A-17 location keys: 'Territory#sector', or 'Polar Sink' alone; default placement in the first sector."""
    board = game.board
    assert board.territory("Cielago North").locations == ("Cielago North#1", "Cielago North#2", "Cielago North#18")
    assert board.territory("Polar Sink").locations == ("Polar Sink",)
    assert board.location_territory("Arrakeen#9") == "Arrakeen"
    assert board.location_sector("Arrakeen#9") == 9
    assert board.location_sector("Polar Sink") is None
    assert board.location_neighbours("Arrakeen#9") == ("Imperial Basin#9", "Old Gap#9", "Rim Wall West#8")
    assert board.default_location("Tuek's Sietch") == "Tuek's Sietch#4"
    assert board.default_location("Polar Sink") == "Polar Sink"
    assert len(board.all_locations()) == sum(len(t.locations) for t in board.territories.values())
    with pytest.raises(KeyError, match="Arrakeen#10"):
        board.location_neighbours("Arrakeen#10")
    with pytest.raises(KeyError, match="Atlantis"):
        board.territory("Atlantis")


def test_spice_blows_lie_in_sand_in_a_sector_of_their_territory(game: GameData) -> None:
    """board.json spice_blows: 15 sites, each in a sand territory's own sector."""
    sites = {t.name: t for t in game.board.territories.values() if t.spice_blow is not None}
    assert len(sites) == 15
    for territory in sites.values():
        assert territory.kind is TerritoryKind.SAND, territory.name
        assert territory.spice_blow.sector in territory.sectors, territory.name
    assert sites["Cielago South"].spice_blow.sector == 1
    assert sites["Cielago South"].spice_blow.amount == 12


def test_storm_protection_follows_the_terrain(game: GameData) -> None:
    """A-2 / board.json storm.damage: rock, strongholds, Polar Sink and (Shield Wall standing) Imperial Basin."""
    for territory in game.board.territories.values():
        sheltered_sand = territory.name == "Imperial Basin"
        expected = territory.kind is not TerritoryKind.SAND or sheltered_sand
        assert territory.protected_from_storm is expected, territory.name
    assert set(game.board.shield_wall_protected) == {"Imperial Basin", "Arrakeen", "Carthag"}


def test_only_arrakeen_and_carthag_have_ornithopters(game: GameData) -> None:
    """board.json strongholds.ornithopter_strongholds; A-22 (3-territory moves from there)."""
    with_ornithopters = {t.name for t in game.board.territories.values() if t.ornithopters}
    assert with_ornithopters == {"Arrakeen", "Carthag"}


def test_fremen_shipping_reaches_two_territories_from_the_great_flat(game: GameData) -> None:
    """board.json fremen_shipping_range: The Great Flat and every territory within two of it."""
    distance = {"The Great Flat": 0}
    queue = deque(["The Great Flat"])
    while queue:
        name = queue.popleft()
        for other in game.board.territory(name).adjacent:
            if other not in distance:
                distance[other] = distance[name] + 1
                queue.append(other)
    within_two = {name for name, steps in distance.items() if steps <= 2}
    assert set(game.board.fremen_shipping_territories) == within_two
    assert len(within_two) == 16


# ----------------------------------------------------------------------------------------- factions

LEADERS = [
    (Faction.ATREIDES, "thufir_hawat", "Thufir Hawat", 5),
    (Faction.ATREIDES, "lady_jessica", "Lady Jessica", 5),
    (Faction.ATREIDES, "gurney_halleck", "Gurney Halleck", 4),
    (Faction.ATREIDES, "duncan_idaho", "Duncan Idaho", 2),
    (Faction.ATREIDES, "dr_wellington_yueh", "Dr. Wellington Yueh", 1),
    (Faction.BENE_GESSERIT, "alia", "Alia", 5),
    (Faction.BENE_GESSERIT, "margot_lady_fenring", "Margot Lady Fenring", 5),
    (Faction.BENE_GESSERIT, "mother_ramallo", "Mother Ramallo", 5),
    (Faction.BENE_GESSERIT, "princess_irulan", "Princess Irulan", 5),
    (Faction.BENE_GESSERIT, "wanna_yueh", "Wanna Yueh", 5),
    (Faction.EMPEROR, "hasimir_fenring", "Hasimir Fenring", 6),
    (Faction.EMPEROR, "captain_aramsham", "Captain Aramsham", 5),
    (Faction.EMPEROR, "caid", "Caid", 3),
    (Faction.EMPEROR, "burseg", "Burseg", 3),
    (Faction.EMPEROR, "bashar", "Bashar", 2),
    (Faction.FREMEN, "stilgar", "Stilgar", 7),
    (Faction.FREMEN, "chani", "Chani", 6),
    (Faction.FREMEN, "otheym", "Otheym", 5),
    (Faction.FREMEN, "shadout_mapes", "Shadout Mapes", 3),
    (Faction.FREMEN, "jamis", "Jamis", 2),
    (Faction.GUILD, "staban_tuek", "Staban Tuek", 5),
    (Faction.GUILD, "master_bewt", "Master Bewt", 3),
    (Faction.GUILD, "esmar_tuek", "Esmar Tuek", 3),
    (Faction.GUILD, "soo_soo_sook", "Soo-Soo Sook", 2),
    (Faction.GUILD, "guild_rep", "Guild Rep.", 1),
    (Faction.HARKONNEN, "feyd_rautha", "Feyd-Rautha", 6),
    (Faction.HARKONNEN, "beast_rabban", "Beast Rabban", 4),
    (Faction.HARKONNEN, "piter_de_vries", "Piter De Vries", 3),
    (Faction.HARKONNEN, "captain_iakin_nefud", "Captain Iakin Nefud", 2),
    (Faction.HARKONNEN, "umman_kudu", "Umman Kudu", 1),
]


@pytest.mark.parametrize(("faction", "leader_id", "name", "strength"), LEADERS)
def test_leader_strength(game: GameData, faction: Faction, leader_id: str, name: str, strength: int) -> None:
    """factions.json factions[].leaders: every leader's name and strength, one by one."""
    leader = game.leader(leader_id)
    assert (leader.faction, leader.name, leader.strength) == (faction, name, strength)


def test_the_leader_table_is_complete_and_in_data_order(game: GameData) -> None:
    """factions.json common.leaders_per_faction: 5 leaders for each base faction, none for the BT (BT-1)."""
    in_data = [(f.id, leader.id) for f in game.factions.values() for leader in f.leaders]
    assert in_data == [(faction, leader_id) for faction, leader_id, _, _ in LEADERS]
    assert game.factions[Faction.BENE_TLEILAXU].leaders == ()


# faction: (starting spice, free revival, tokens on the board, tokens in reserve)
STARTS = {
    Faction.ATREIDES: (10, 2, {"Arrakeen": 10}, 10),
    Faction.BENE_GESSERIT: (5, 1, {"Polar Sink": 1}, 19),
    Faction.EMPEROR: (10, 1, {}, 20),
    Faction.FREMEN: (3, 3, {}, 10),
    Faction.GUILD: (5, 1, {"Tuek's Sietch": 5}, 15),
    Faction.HARKONNEN: (10, 2, {"Carthag": 10}, 10),
    Faction.BENE_TLEILAXU: (5, 0, {}, 0),
}


@pytest.mark.parametrize("faction", list(STARTS))
def test_faction_starting_values(game: GameData, faction: Faction) -> None:
    """factions.json starting_spice / free_revival / start_on_board / start_reserve; BT-4 for the BT."""
    data = game.factions[faction]
    assert (data.starting_spice, data.free_revival, data.start_on_board, data.start_reserve) == STARTS[faction]


def test_fremen_choose_where_their_10_starting_tokens_go(game: GameData) -> None:
    """factions.json Fremen start_on_board.choice: 10 tokens over Sietch Tabr, False Wall South/West."""
    fremen = game.factions[Faction.FREMEN]
    assert fremen.start_choice is not None
    assert fremen.start_choice.tokens == 10
    assert set(fremen.start_choice.territories) == {"Sietch Tabr", "False Wall South", "False Wall West"}
    assert all(f.start_choice is None for f in game.factions.values() if f.id is not Faction.FREMEN)


def test_hand_limits_starting_cards_traitors_and_special_tokens(game: GameData) -> None:
    """factions.json: Harkonnen hold 8, start with 2 cards, keep 4 traitors; Sardaukar 5, Fedaykin 3."""
    for faction in BASE_FACTIONS:
        data = game.factions[faction]
        harkonnen = faction is Faction.HARKONNEN
        assert data.hand_limit == (8 if harkonnen else 4), faction
        assert data.starting_treachery_cards == (2 if harkonnen else 1), faction
        assert data.traitors_kept == (4 if harkonnen else 1), faction
        assert data.tokens_total == 20 and data.has_dot, faction
    specials = {faction: data.special_tokens for faction, data in game.factions.items() if data.special_tokens}
    assert specials == {Faction.EMPEROR: 5, Faction.FREMEN: 3}


def test_bene_tleilaxu_have_no_pieces_and_start_with_5_spice_and_4_cards(game: GameData) -> None:
    """BT-1 (no tokens, leaders, dot or traitors), BT-4 (5 spice, 4 cards), R-2 (hand limit 4)."""
    bt = game.factions[Faction.BENE_TLEILAXU]
    assert (bt.tokens_total, bt.leaders, bt.has_dot, bt.traitors_kept, bt.free_revival) == (0, (), False, 0, 0)
    assert (bt.starting_spice, bt.starting_treachery_cards, bt.hand_limit) == (5, 4, 4)
    assert bt.start_on_board == {} and bt.start_choice is None


def test_traitor_deck_holds_one_card_per_leader_in_play(game: GameData) -> None:
    """cards.json traitor_deck: 30 cards for the six base factions; absent factions removed; BT add none (BT-1)."""
    assert len(game.traitor_deck(BASE_FACTIONS)) == 30
    without_guild = [faction for faction in BASE_FACTIONS if faction is not Faction.GUILD]
    assert len(game.traitor_deck(without_guild)) == 25
    assert "staban_tuek" not in game.traitor_deck(without_guild)
    assert game.traitor_deck([*BASE_FACTIONS, Faction.BENE_TLEILAXU]) == game.traitor_deck(BASE_FACTIONS)


# -------------------------------------------------------------------------------------------- cards


def test_treachery_deck_has_33_cards_by_category(game: GameData) -> None:
    """cards.json treachery_deck.category_counts (WBC list of the AH 1979 deck)."""
    assert len(game.treachery_cards) == 33
    assert Counter(card.category for card in game.treachery_cards) == {
        CardCategory.PROJECTILE: 4,
        CardCategory.POISON: 4,
        CardCategory.LASGUN: 1,
        CardCategory.SHIELD: 4,
        CardCategory.SNOOPER: 4,
        CardCategory.CHEAP_HERO: 3,
        CardCategory.WORTHLESS: 5,
        CardCategory.SPECIAL: 8,
    }


def test_special_cards_split(game: GameData) -> None:
    """cards.json: Family Atomics 1, Hajr 1, Karama 2, Tleilaxu Ghola 1, Truthtrance 2, Weather Control 1."""
    specials = Counter(card.name for card in game.treachery_cards if card.category is CardCategory.SPECIAL)
    assert specials == {
        "Family Atomics": 1,
        "Hajr": 1,
        "Karama": 2,
        "Tleilaxu Ghola": 1,
        "Truthtrance": 2,
        "Weather Control": 1,
    }


def test_treachery_card_ids_name_each_physical_card(game: GameData) -> None:
    """One id per physical card; a numeric suffix only where the deck holds several copies."""
    ids = [card.id for card in game.treachery_cards]
    assert len(set(ids)) == 33
    expected = {"shield_1", "shield_4", "snooper_3", "karama_1", "karama_2", "cheap_hero_1", "cheap_hero_2"}
    assert expected | {"cheap_heroine", "lasgun", "la_la_la", "truthtrance_2"} <= set(ids)
    assert game.card("la_la_la").name == "La, La, La"
    assert game.card("cheap_heroine").category is CardCategory.CHEAP_HERO
    assert all(card.effect for card in game.treachery_cards)


def test_spice_deck_has_15_territory_cards_worth_118_and_6_worms(game: GameData) -> None:
    """cards.json spice_deck: 21 cards = 15 territory cards (118 spice in all) + 6 Shai-Hulud."""
    worms = [card for card in game.spice_cards if card.is_worm]
    territory_cards = [card for card in game.spice_cards if not card.is_worm]
    assert len(game.spice_cards) == 21
    assert [card.id for card in worms] == [f"shai_hulud_{n}" for n in range(1, 7)]
    assert len({card.territory for card in territory_cards}) == 15
    assert sum(card.amount for card in territory_cards) == 118
    assert game.spice_card("spice_cielago_south").amount == 12


def test_each_spice_card_matches_its_board_spice_blow(game: GameData) -> None:
    """cards.json territory_cards vs board.json spice_blows: same territory, sector and amount."""
    for card in game.spice_cards:
        if card.is_worm:
            continue
        site = game.board.territory(card.territory).spice_blow
        assert (site.sector, site.amount) == (card.sector, card.amount), card.id


# ------------------------------------------------------------------------------------------ loading


def test_default_data_is_loaded_once(game: GameData) -> None:
    """Loading is cached: every caller shares one immutable GameData."""
    assert load_game_data() is game
    with pytest.raises(ValueError, match="frozen"):
        game.board.storm_start_sector = 1


def _territory(raw: Raw, name: str) -> dict:
    return next(t for t in raw["territories"] if t["name"] == name)


def _make_adjacency_one_sided(raw: Raw) -> None:
    _territory(raw, "Arrakeen")["adjacent"].remove("Old Gap")


def _put_spice_blow_on_rock(raw: Raw) -> None:
    _territory(raw, "False Wall East")["spice_blow"] = {"sector": 5, "amount": 8}


def _duplicate_a_leader_id(raw: Raw) -> None:
    raw["factions"][1]["leaders"][0]["id"] = "thufir_hawat"


def _break_the_token_count(raw: Raw) -> None:
    raw["factions"][0]["start_reserve"] = 11


def _change_a_spice_card_amount(raw: Raw) -> None:
    raw["spice_cards"][0]["amount"] = 13


def _drop_the_source(raw: Raw) -> None:
    del raw["source"]


@pytest.mark.parametrize(
    ("file_name", "corrupt", "problem"),
    [
        ("board.json", _make_adjacency_one_sided, "adjacency is not symmetric: 'Old Gap' lists 'Arrakeen'"),
        ("board.json", _put_spice_blow_on_rock, "'False Wall East': spice blows only on sand"),
        ("factions.json", _duplicate_a_leader_id, "leader id 'thufir_hawat' is used twice"),
        ("factions.json", _break_the_token_count, "faction atreides: 10 tokens on the board \\+ 11 in reserve"),
        ("cards.json", _change_a_spice_card_amount, "spice card 'spice_cielago_south'"),
        ("cards.json", _drop_the_source, "source"),
    ],
)
def test_corrupted_data_is_refused_naming_the_problem(
    tmp_path: Path, file_name: str, corrupt: Callable[[Raw], None], problem: str
) -> None:
    """Bad data must fail loudly at load time (DataError), not later as a wrong ruling."""
    for name in ("board.json", "factions.json", "cards.json"):
        shutil.copy(DATA_DIR / name, tmp_path / name)
    raw = json.loads((tmp_path / file_name).read_text(encoding="utf-8"))
    corrupt(raw)
    (tmp_path / file_name).write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(DataError, match=problem):
        load_game_data(tmp_path)


def test_an_intact_copy_of_the_data_loads(tmp_path: Path) -> None:
    """The corruption tests above fail for their corruption only: an untouched copy loads."""
    for name in ("board.json", "factions.json", "cards.json"):
        shutil.copy(DATA_DIR / name, tmp_path / name)
    assert load_game_data(tmp_path) == load_game_data()
