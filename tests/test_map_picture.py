"""The map picture (bot/app/map_picture.py): a legible schematic of the board that shows each viewer only what
the views let it see."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops, ImageColor

from bot.app.map_picture import (
    FACTION_COLOURS,
    HEIGHT,
    STORM_FILL,
    WIDTH,
    location_box,
    render_map,
    territory_keys,
)
from engine.actions import LayTraps
from engine.checks.autoplay import play_until_stuck
from engine.data import POLAR_SINK, load_game_data
from engine.game import new_game
from engine.ids import Faction
from engine.model import GameState, Phase
from engine.rng import Rng
from tests.conftest import make_setup
from tests.helpers.twin_games import twin_games

BT = Faction.BENE_TLEILAXU
SEED = 4  # this game's BT lay two traps at setup (Habbanya Sietch, Tuek's Sietch); none is sprung by turn 3
MAX_BYTES = 500_000


def _picture(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def _changed_area(first: bytes, second: bytes, within: tuple[int, int, int, int] | None = None):
    """The box around every pixel that differs (only those within `within`, when given), or None."""
    first_image, second_image = _picture(first), _picture(second)
    if within is not None:
        first_image, second_image = first_image.crop(within), second_image.crop(within)
    return ImageChops.difference(first_image, second_image).getbbox()


def _inside(point: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


@pytest.fixture(scope="module")
def mid_game() -> GameState:
    """Seven factions with the BT, played by the automatic players up to the storm of turn 3."""
    state, _ = new_game(make_setup(seed=SEED))
    state, _, _ = play_until_stuck(state, Rng.from_seed(SEED), while_=lambda s: s.turn < 3)
    assert state.turn == 3 and state.traps and state.forces
    return state


def test_the_map_is_a_png_of_the_expected_size_and_under_500_kb(mid_game):
    png = render_map(mid_game, None)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    assert image.size == (WIDTH, HEIGHT) == (1400, 1000)
    assert len(png) < MAX_BYTES


def test_the_same_state_draws_the_same_picture(mid_game):
    assert render_map(mid_game, None) == render_map(mid_game.model_copy(deep=True), None)


def test_a_moved_token_changes_the_picture_just_where_it_left_and_arrived(mid_game):
    moved = mid_game.model_copy(deep=True)
    source, here = next((loc, here) for loc, here in moved.forces.items() if loc != POLAR_SINK)
    faction = next(iter(here))
    moved.add_tokens(source, faction, -1)
    moved.add_tokens(POLAR_SINK, faction, 1)
    before, after = render_map(mid_game, None), render_map(moved, None)
    boxes = [location_box(source), location_box(POLAR_SINK)]
    for box in boxes:
        assert _changed_area(before, after, box) is not None, f"nothing changed in {box}"
    changed = _changed_area(before, after)
    union = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    assert _inside(changed[:2], union) and _inside(changed[2:], union), "only those two cells change"


def test_spice_on_the_sand_is_drawn(mid_game):
    richer = mid_game.model_copy(deep=True)
    richer.spice_on_board["Cielago South#1"] = richer.spice_on_board.get("Cielago South#1", 0) + 5
    before, after = render_map(mid_game, None), render_map(richer, None)
    assert _changed_area(before, after, location_box("Cielago South#1")) is not None


def test_the_storms_sector_is_shaded(mid_game):
    """A-17: the cells of the storm's sector are drawn in darker colours, and only there."""
    board = load_game_data().board
    here = mid_game.storm_sector
    elsewhere = mid_game.model_copy(deep=True)
    elsewhere.storm_sector = (here + 8) % 18 + 1  # across the disc
    for location in (loc for loc in board.all_locations() if board.location_sector(loc) == here):
        darkened = ImageColor.getrgb(STORM_FILL[board.territory(board.location_territory(location)).kind])
        # a cell is filled: hundreds of pixels; a label's anti-aliased edge may blend into the colour here and there
        stormy = _count(render_map(mid_game, None), location_box(location), darkened)
        assert stormy > 100 and _count(render_map(elsewhere, None), location_box(location), darkened) < stormy / 10, \
            location


def _count(png: bytes, box: tuple[int, int, int, int], colour: tuple[int, int, int]) -> int:
    return sum(n for n, seen in _picture(png).crop(box).getcolors(maxcolors=1 << 20) if seen == colour)


def _colours(png: bytes, box: tuple[int, int, int, int]) -> set[tuple[int, int, int]]:
    return {colour for _, colour in _picture(png).crop(box).getcolors(maxcolors=1 << 20)}


def test_a_stronghold_the_bt_control_is_marked(mid_game):
    """BT-24: a stronghold the BT took by a traitor's reveal is outlined in their colour (public)."""
    controlled = mid_game.model_copy(deep=True)
    empty = next(s for s in load_game_data().board.strongholds if not any(
        loc.startswith(s) for loc in controlled.forces))
    controlled.bt.controlled.append(empty)
    cell = location_box(f"{empty}#{_sector(empty)}")
    assert _changed_area(render_map(mid_game, None), render_map(controlled, None), cell) is not None
    outline = ImageColor.getrgb(FACTION_COLOURS[BT][0])
    assert outline in _colours(render_map(controlled, None), cell)


def _sector(territory: str) -> int:
    return load_game_data().board.territory(territory).sectors[0]


def test_every_territory_has_its_own_short_key():
    board = load_game_data().board
    keys = territory_keys(board)
    assert set(keys) == set(board.territories) - {POLAR_SINK}
    assert len(set(keys.values())) == len(keys)
    assert all(1 <= len(k) <= 3 for k in keys.values())


def test_bt_30_the_tables_picture_is_the_same_with_or_without_traps(mid_game):
    """BT-30: traps are secret to the BT; twin games that differ only in their traps draw the same table
    picture, and the same picture for every other faction, while the BT's own picture shows them."""
    without = mid_game.model_copy(deep=True)
    without.traps = {}
    assert render_map(mid_game, None) == render_map(without, None)
    for faction in mid_game.factions:
        if faction != BT:
            assert render_map(mid_game, faction) == render_map(without, faction), f"{faction} sees the traps"
    for stronghold in mid_game.traps:
        cell = location_box(f"{stronghold}#{_sector(stronghold)}")
        assert _changed_area(render_map(mid_game, BT), render_map(without, BT), cell) is not None, \
            f"the BT's own picture does not show their trap in {stronghold}"


def test_bt_30_which_card_a_trap_is_shows_only_in_the_bts_picture():
    """Twin games played on from two different trap cards on Habbanya Sietch (tests/test_secrets.py)."""
    (first, _), (second, _) = twin_games(
        7,
        lambda s: LayTraps(faction=BT, traps={"Habbanya Sietch": s.faction(BT).hand[0]}),
        lambda s: LayTraps(faction=BT, traps={"Habbanya Sietch": s.faction(BT).hand[1]}),
        until=Phase.MOVEMENT,
        bt_give_cards=False,
    )
    assert first.traps["Habbanya Sietch"].card != second.traps["Habbanya Sietch"].card
    assert render_map(first, None) == render_map(second, None)
    assert render_map(first, BT) != render_map(second, BT)


def test_a_factions_own_picture_is_labelled_and_differs_from_the_tables(mid_game):
    assert render_map(mid_game, Faction.ATREIDES) != render_map(mid_game, None)


def _legend_line(png: bytes, faction: Faction) -> Image.Image:
    """The legend's row of one faction: its name and its tokens on the board / in reserve / in the tanks."""
    from bot.app.map_picture import FACTIONS_Y, PANEL_X

    row = [f for f in Faction].index(faction)
    return _picture(png).crop((PANEL_X, FACTIONS_Y + 21 * row, PANEL_X + 300, FACTIONS_Y + 21 * row + 18))


def test_a_15_co_existing_advisors_are_drawn_apart_from_fighters_and_counted_on_the_board(mid_game):
    """Issue 25 item 6: advisors in Carthag were drawn as nothing and the legend counted 10 of the Bene Gesserit's
    20 tokens. Now they have a badge of their own (white inside the Bene Gesserit's colour, unlike a fighter's
    filled badge) where they are, and count among the tokens on the board."""
    with_advisors = mid_game.model_copy(deep=True)
    location = next(loc for loc in with_advisors.forces if loc != POLAR_SINK)
    with_advisors.factions[Faction.BENE_GESSERIT].reserves -= 2
    with_advisors.bg_advisors[location] = 2
    before, after = render_map(mid_game, None), render_map(with_advisors, None)
    ring = ImageColor.getrgb(FACTION_COLOURS[Faction.BENE_GESSERIT][0])
    cell = location_box(location)
    assert _changed_area(before, after, cell) is not None
    assert ring in _colours(after, cell) and (255, 255, 255) in _colours(after, cell)
    # the legend's Bene Gesserit row changes (on the board +2, in reserve -2); no other faction's row does
    assert ImageChops.difference(_legend_line(before, Faction.BENE_GESSERIT),
                                 _legend_line(after, Faction.BENE_GESSERIT)).getbbox() is not None
    for other in set(mid_game.factions) - {Faction.BENE_GESSERIT}:
        assert ImageChops.difference(_legend_line(before, other), _legend_line(after, other)).getbbox() is None


def test_a_15_the_status_board_counts_advisors_among_the_bene_gesserits_tokens_on_the_board(mid_game):
    """Issue 25 item 6: the status board read "0 on the board, 2 in reserve, 13 in the tanks" for a Bene Gesserit
    whose five advisors were in Carthag."""
    from bot.app.feed import status_text
    from engine.secrecy.views import view

    with_advisors = mid_game.model_copy(deep=True)
    with_advisors.factions[Faction.BENE_GESSERIT].reserves -= 5
    with_advisors.bg_advisors["Carthag#10"] = 5
    before = view(mid_game, None).tokens_on_board()[Faction.BENE_GESSERIT]
    line = next(line for line in status_text(view(with_advisors, None), with_advisors).splitlines()
                if line.startswith("- Bene Gesserit:"))
    reserves = with_advisors.factions[Faction.BENE_GESSERIT].reserves
    assert line.startswith(f"- Bene Gesserit: {before + 5} on the board (5 of them advisors), {reserves} in reserve")
