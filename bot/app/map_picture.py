"""The map picture: a schematic of Arrakis drawn from data/board.json (no board art), as PNG bytes.

The disc is split into the 18 sectors (A-17: numbered counterclockwise, 18 the Storm Start Sector); each
sector is split into bands, one per location in it, ordered from the Polar Sink outwards by how many steps
the location is from it. Every cell carries its territory's short key (the key table names them), its
spice and each faction's tokens as a coloured badge with the count.

Everything drawn comes from `engine.secrecy.views.view(state, viewer)`, never from the raw state, so the picture
can show only what its viewer may know: the table's picture (viewer None) public facts only, a faction's
own picture adds its own secrets (the BT's traps and their cards, BT-30; its spice behind the shield).
The trap's stronghold is public (a face-down card), but the table's picture leaves traps out altogether,
so that it is the same whether or not the BT laid any.

The last section says when the table gets the map: after the storm, the movement round and the battles.
"""

from __future__ import annotations

import io
import math
from collections import deque
from collections.abc import Callable, Sequence
from functools import cache

from PIL import Image, ImageColor, ImageDraw, ImageFont

from engine.data import POLAR_SINK, SECTOR_COUNT, Board, load_game_data
from engine.ids import Faction, TerritoryKind
from engine.model import GameState
from engine.names import card_name, faction_name
from engine.secrecy.views import PlayerView, view

WIDTH, HEIGHT = 1400, 1000
CENTRE = (500, 510)
RIM = 440  # outer radius of the disc
SINK = 105  # radius of the Polar Sink in the middle
PANEL_X = 1010  # the legend and the key table, right of the disc
FACTIONS_Y = 36  # room for seven factions, so that what follows stays put whoever plays
SYMBOLS_Y = FACTIONS_Y + 7 * 21 + 6
KEY_TABLE_Y = SYMBOLS_Y + 6 * 22 + 2 + 8
OWN_Y = KEY_TABLE_Y + 20 + 21 * 15 + 10

FACTION_COLOURS: dict[Faction, tuple[str, str]] = {  # badge fill, count text
    Faction.ATREIDES: ("#2e8b3e", "white"),
    Faction.BENE_GESSERIT: ("#2f5fd0", "white"),
    Faction.EMPEROR: ("#c62828", "white"),
    Faction.FREMEN: ("#f2c12e", "black"),
    Faction.GUILD: ("#ef7d16", "black"),
    Faction.HARKONNEN: ("#1c1c1c", "white"),
    Faction.BENE_TLEILAXU: ("#8e3fb0", "white"),
}
KIND_FILL = {
    TerritoryKind.SAND: "#eedcb0",
    TerritoryKind.ROCK: "#b89e7b",
    TerritoryKind.STRONGHOLD: "#f7efd8",
    TerritoryKind.POLAR_SINK: "#d8e4ea",
}
STORM_FILL = {  # the same kinds, darkened under the storm
    TerritoryKind.SAND: "#a98f86",
    TerritoryKind.ROCK: "#857064",
    TerritoryKind.STRONGHOLD: "#b9ab9f",
}
BACKGROUND = "#f8f6f0"
INK = "#222222"
CELL_LINE = "#8a7456"
STRONGHOLD_LINE = "#b8860b"
STORM_LINE = "#9b1c1c"
SPICE_FILL = "#e0801f"
TRAP_FILL = "#111111"

PHASE_NAMES = {"spice_blow": "Spice blow"}


# --- the board's geometry, computed once from the data ------------------------------------------------


class _Cell:
    """One location drawn as an annular wedge: its territory, sector and radii."""

    def __init__(self, location: str, territory: str, kind: TerritoryKind, sector: int, inner: float,
                 outer: float) -> None:
        self.location, self.territory, self.kind, self.sector = location, territory, kind, sector
        self.inner, self.outer = inner, outer
        self.angle = sector_angle(sector)


def sector_angle(sector: int) -> float:
    """The angle (radians, counterclockwise from east) of a sector's middle; sector 1 at the bottom, as the
    Cielago territories lie on the printed board, the numbers rising counterclockwise (A-17)."""
    return math.radians(-90 + (sector - 1) * 360 / SECTOR_COUNT)


def _point(angle: float, radius: float) -> tuple[float, float]:
    return CENTRE[0] + radius * math.cos(angle), CENTRE[1] - radius * math.sin(angle)


def _steps_from_sink(board: Board) -> dict[str, int]:
    """Breadth-first distance of every location from the Polar Sink: the cell's band, inner first."""
    steps = {POLAR_SINK: 0}
    queue = deque([POLAR_SINK])
    while queue:
        here = queue.popleft()
        for there in board.location_neighbours(here):
            if there not in steps:
                steps[there] = steps[here] + 1
                queue.append(there)
    return steps


@cache
def _layout() -> tuple[list[_Cell], dict[str, str]]:
    board = load_game_data().board
    steps = _steps_from_sink(board)
    by_sector: dict[int, list[str]] = {s: [] for s in range(1, SECTOR_COUNT + 1)}
    for location in board.all_locations():
        sector = board.location_sector(location)
        if sector is not None:
            by_sector[sector].append(location)
    cells = []
    for sector, locations in by_sector.items():
        locations.sort(key=lambda loc: (steps.get(loc, 99), loc))
        radii = _band_radii(len(locations))
        for i, location in enumerate(locations):
            territory = board.location_territory(location)
            cells.append(_Cell(location, territory, board.territory(territory).kind, sector, radii[i], radii[i + 1]))
    return cells, territory_keys(board)


def _band_radii(bands: int) -> list[float]:
    """The radii between a sector's bands: halfway between equal widths and equal areas, so that the inner
    cells, narrow along the arc, get more depth and every cell has room for its key and badges."""
    radii = []
    for i in range(bands + 1):
        even = SINK + (RIM - SINK) * i / bands
        equal_area = math.sqrt(SINK**2 + (RIM**2 - SINK**2) * i / bands)
        radii.append((even + equal_area) / 2)
    return radii


def territory_keys(board: Board) -> dict[str, str]:
    """A short unique key per territory: the initials of its words ("Habbanya Ridge Flat" -> "HRF"), or
    the first three letters of a one-word name ("Arrakeen" -> "ARR"); a clash takes more letters."""
    keys: dict[str, str] = {}
    for name in sorted(board.territories):
        if name == POLAR_SINK:
            continue
        words = [w for w in name.replace("'", "").split() if w.lower() not in ("the", "of", "in")]
        key = "".join(w[0] for w in words).upper() if len(words) > 1 else words[0][:3].upper()
        extra = 1
        while key in keys.values():  # e.g. The Great Flat / The Greater Flat
            key = "".join(w[0] for w in words[:-1]).upper() + words[-1][: 1 + extra].upper()
            extra += 1
        keys[name] = key
    return keys


def location_box(location: str) -> tuple[int, int, int, int]:
    """The box (left, top, right, bottom) around a location's cell, in pixels."""
    if location == POLAR_SINK:
        return CENTRE[0] - SINK, CENTRE[1] - SINK, CENTRE[0] + SINK, CENTRE[1] + SINK
    corners = _wedge(next(c for c in _layout()[0] if c.location == location))
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    return math.floor(min(xs)), math.floor(min(ys)), math.ceil(max(xs)), math.ceil(max(ys))


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Pillow's bundled font (Pillow 10.1+), so that the picture looks the same on any machine.
    return ImageFont.load_default(size=size)


# --- drawing -------------------------------------------------------------------------------------------


def _wedge(cell: _Cell, inner: float | None = None, outer: float | None = None) -> list[tuple[float, float]]:
    half = math.radians(360 / SECTOR_COUNT / 2)
    inner = cell.inner if inner is None else inner
    outer = cell.outer if outer is None else outer
    steps = 6
    arc = [cell.angle - half + 2 * half * i / steps for i in range(steps + 1)]
    return [_point(a, outer) for a in arc] + [_point(a, inner) for a in reversed(arc)]


def _badge(draw: ImageDraw.ImageDraw, centre: tuple[float, float], faction: Faction, count: int) -> None:
    fill, text = FACTION_COLOURS[faction]
    x, y = centre
    draw.ellipse((x - 10, y - 10, x + 10, y + 10), fill=fill, outline=INK)
    draw.text((x, y), str(count), fill=text, font=_font(12), anchor="mm")


def _advisor_badge(draw: ImageDraw.ImageDraw, centre: tuple[float, float], count: int) -> None:
    """Co-existing Bene Gesserit advisors (A-15): the Bene Gesserit's colour as a thick ring around a white disc, so
    that they read as that faction's tokens and not as fighters."""
    x, y = centre
    draw.ellipse((x - 10, y - 10, x + 10, y + 10), fill="white", outline=FACTION_COLOURS[Faction.BENE_GESSERIT][0],
                 width=4)
    draw.text((x, y), str(count), fill=INK, font=_font(12), anchor="mm")


def _spice(draw: ImageDraw.ImageDraw, centre: tuple[float, float], amount: int) -> None:
    x, y = centre
    draw.polygon([(x, y - 11), (x + 11, y), (x, y + 11), (x - 11, y)], fill=SPICE_FILL, outline=INK)
    draw.text((x, y), str(amount), fill="black", font=_font(11), anchor="mm")


def _trap_flag(draw: ImageDraw.ImageDraw, at: tuple[float, float]) -> None:
    x, y = at
    draw.rectangle((x - 5, y - 6, x + 5, y + 6), fill=TRAP_FILL)
    draw.text((x, y), "T", fill="white", font=_font(10), anchor="mm")


Part = tuple[float, Callable[[tuple[float, float]], None]]  # a width along the arc, and how to draw it there


def _line(angle: float, radius: float, parts: list[Part]) -> None:
    """Draw the parts side by side across the sector (along the arc, left to right), centred on the point
    at `radius` in the sector's middle."""
    middle = _point(angle, radius)
    tangent = (-math.sin(angle), -math.cos(angle))
    if tangent[0] < 0 or (tangent[0] == 0 and tangent[1] < 0):
        tangent = (-tangent[0], -tangent[1])
    gap = 3
    offset = -(sum(width for width, _ in parts) + gap * (len(parts) - 1)) / 2
    for width, draw_part in parts:
        centre = offset + width / 2
        draw_part((middle[0] + tangent[0] * centre, middle[1] + tangent[1] * centre))
        offset += width + gap


def _key_parts(draw: ImageDraw.ImageDraw, cell: _Cell, trapped: bool) -> list[Part]:
    """The cell's territory key (a star for a stronghold), and the viewer's own trap flag (BT-30)."""
    label = _layout()[1][cell.territory] + ("*" if cell.kind == TerritoryKind.STRONGHOLD else "")
    font = _font(12)
    key: list[Part] = [(font.getlength(label), lambda at: draw.text(at, label, fill=INK, font=font, anchor="mm"))]
    if trapped:
        key.append((11, lambda at: _trap_flag(draw, at)))
    return key


def _badge_part(draw: ImageDraw.ImageDraw, faction: Faction, count: int) -> Callable[[tuple[float, float]], None]:
    return lambda at: _badge(draw, at, faction, count)


def _content_parts(draw: ImageDraw.ImageDraw, spice: int, forces: dict[Faction, int], advisors: int) -> list[Part]:
    """What lies in the cell: its spice, each faction's badge, then the Bene Gesserit's advisors."""
    contents: list[Part] = [(22, lambda at: _spice(draw, at, spice))] if spice else []
    for faction, count in forces.items():
        contents.append((21, _badge_part(draw, faction, count)))
    if advisors:
        contents.append((21, lambda at: _advisor_badge(draw, at, advisors)))
    return contents


def _draw_cell(draw: ImageDraw.ImageDraw, cell: _Cell, *, stormy: bool = False, bt_controlled: bool = False,
               key: list[Part], contents: Sequence[Part] = ()) -> None:
    draw.polygon(_wedge(cell), fill=(STORM_FILL if stormy else KIND_FILL)[cell.kind], outline=CELL_LINE)
    if bt_controlled:  # BT-24: an outline in the BT's colour inside the cell
        draw.polygon(_wedge(cell, cell.inner + 3, cell.outer - 3),
                     outline=FACTION_COLOURS[Faction.BENE_TLEILAXU][0], width=4)
    mid, thick = (cell.inner + cell.outer) / 2, cell.outer - cell.inner
    if not contents:
        _line(cell.angle, mid, key)
    elif thick >= 50:  # the key above its contents
        _line(cell.angle, mid + thick * 0.2, key)
        _line(cell.angle, mid - thick * 0.18, list(contents))
    else:  # a shallow cell: the key beside its contents
        _line(cell.angle, mid, key + list(contents))


def _draw_boundaries(draw: ImageDraw.ImageDraw) -> None:
    """The strongholds' gold outlines, the sector lines, the rim and the Polar Sink's edge, over the cells."""
    for cell in _layout()[0]:
        if cell.kind == TerritoryKind.STRONGHOLD:
            draw.polygon(_wedge(cell), outline=STRONGHOLD_LINE, width=3)
    half = math.radians(360 / SECTOR_COUNT / 2)
    for sector in range(1, SECTOR_COUNT + 1):
        a = sector_angle(sector) - half
        draw.line([_point(a, SINK), _point(a, RIM)], fill=INK, width=2)
    x, y = CENTRE
    draw.ellipse((x - RIM, y - RIM, x + RIM, y + RIM), outline=INK, width=2)
    draw.ellipse((x - SINK, y - SINK, x + SINK, y + SINK), outline=CELL_LINE, width=2)


def _number_at(sector: int) -> tuple[float, float]:
    return _point(sector_angle(sector), RIM + 26)


@cache
def _board() -> Image.Image:
    """Everything no game changes: the cells empty and out of the storm with their keys, the sector lines and
    numbers, the Polar Sink, the legend of symbols and the key table. Each picture starts from a copy of it
    and redraws only what differs, which spares most of the text drawing (the slow part)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for cell in _layout()[0]:
        _draw_cell(draw, cell, key=_key_parts(draw, cell, trapped=False))
    x, y = CENTRE
    draw.ellipse((x - SINK, y - SINK, x + SINK, y + SINK), fill=KIND_FILL[TerritoryKind.POLAR_SINK])
    draw.text((x, y - 40), "Polar Sink", fill=INK, font=_font(14), anchor="mm")
    _draw_boundaries(draw)
    for sector in range(1, SECTOR_COUNT + 1):
        draw.text(_number_at(sector), str(sector), fill=INK, font=_font(16), anchor="mm")
    draw.text((PANEL_X, 14), "Factions (on board / reserves / tanks)", fill=INK, font=_font(14))
    _draw_symbols(draw, PANEL_X, SYMBOLS_Y)
    _draw_key_table(draw, PANEL_X, KEY_TABLE_Y)
    return image


def _draw_disc(draw: ImageDraw.ImageDraw, seen: PlayerView) -> None:
    """The cells the board shows differently in this game: in the storm, holding spice or tokens, controlled
    by the BT, or trapped in the viewer's own knowledge; then the storm, the Polar Sink and the player dots."""
    controlled = set(seen.bt_controlled)
    trap_cards = seen.own.trap_cards if seen.own else {}
    for cell in _layout()[0]:
        stormy = cell.sector == seen.storm_sector
        spice = seen.spice_on_board.get(cell.location, 0)
        forces = _ordered(seen.forces.get(cell.location, {}))
        advisors = seen.bg_advisors.get(cell.location, 0)
        trapped, bt_controlled = cell.territory in trap_cards, cell.territory in controlled
        if stormy or spice or forces or advisors or trapped or bt_controlled:
            _draw_cell(draw, cell, stormy=stormy, bt_controlled=bt_controlled, key=_key_parts(draw, cell, trapped),
                       contents=_content_parts(draw, spice, forces, advisors))
    _draw_boundaries(draw)
    _draw_storm(draw, seen.storm_sector)
    _draw_sink(draw, seen)
    _draw_dots(draw, seen)


def _ordered(forces: dict[Faction, int]) -> dict[Faction, int]:
    return {f: forces[f] for f in Faction if forces.get(f)}


def _draw_storm(draw: ImageDraw.ImageDraw, sector: int) -> None:
    """A-17: the storm's sector outlined in red, a red band along its rim, and its number in red."""
    half = math.radians(360 / SECTOR_COUNT / 2)
    angle = sector_angle(sector)
    steps = 6
    arc = [angle - half + 2 * half * i / steps for i in range(steps + 1)]
    draw.polygon([_point(a, RIM) for a in arc] + [_point(a, SINK) for a in reversed(arc)], outline=STORM_LINE,
                 width=4)
    x, y = _number_at(sector)
    draw.rectangle((x - 14, y - 12, x + 14, y + 12), fill=BACKGROUND)  # the board's plain number
    ring = (CENTRE[0] - RIM - 9, CENTRE[1] - RIM - 9, CENTRE[0] + RIM + 9, CENTRE[1] + RIM + 9)
    middle, span = math.degrees(angle), 360 / SECTOR_COUNT / 2
    draw.arc(ring, -middle - span, -middle + span, fill=STORM_LINE, width=9)
    draw.text((x, y), str(sector), fill=STORM_LINE, font=_font(20), anchor="mm")


def _draw_sink(draw: ImageDraw.ImageDraw, seen: PlayerView) -> None:
    x, y = CENTRE
    here = list(_ordered(seen.forces.get(POLAR_SINK, {})).items())
    for r, row in enumerate([here[:4], here[4:]]):
        for i, (faction, count) in enumerate(row):
            _badge(draw, (x + (i - (len(row) - 1) / 2) * 24, y - 10 + r * 24), faction, count)
    spice = seen.spice_on_board.get(POLAR_SINK, 0)
    if spice:
        _spice(draw, (x, y + 44), spice)


def _draw_dots(draw: ImageDraw.ImageDraw, seen: PlayerView) -> None:
    """A-4: each faction's player dot by its sector's number, in the faction's colour."""
    for public in seen.factions:
        if public.dot is not None:
            dx, dy = _point(sector_angle(public.dot) + math.radians(6), RIM + 20)
            draw.ellipse((dx - 6, dy - 6, dx + 6, dy + 6), fill=FACTION_COLOURS[public.faction][0], outline=INK)


def _phase_name(seen: PlayerView) -> str:
    return PHASE_NAMES.get(seen.phase.value, seen.phase.value.capitalize())


def _draw_corner(draw: ImageDraw.ImageDraw, seen: PlayerView) -> None:
    draw.text((16, 12), f"Turn {seen.turn}", fill=INK, font=_font(26))
    draw.text((16, 44), _phase_name(seen), fill=INK, font=_font(20))
    draw.text((16, 70), f"Storm over sector {seen.storm_sector}", fill=STORM_LINE, font=_font(14))
    whose = "The table's map" if seen.viewer is None else f"{faction_name(seen.viewer)}: your own map (secret)"
    draw.text((16, 90), whose, fill=STORM_LINE if seen.viewer else INK, font=_font(14))
    if seen.winners:
        won = " and ".join(faction_name(f) for f in seen.winners)
        draw.text((16, HEIGHT - 34), f"Game over: {won} won", fill=INK, font=_font(20))


def _draw_factions(draw: ImageDraw.ImageDraw, seen: PlayerView) -> None:
    """The legend of faction colours, with each faction's tokens on the board, in reserve and in the tanks."""
    on_board = seen.tokens_on_board()
    x, y = PANEL_X, FACTIONS_Y
    for public in seen.factions:
        draw.ellipse((x, y, x + 16, y + 16), fill=FACTION_COLOURS[public.faction][0], outline=INK)
        draw.text((x + 24, y + 8), faction_name(public.faction), fill=INK, font=_font(14), anchor="lm")
        draw.text((x + 175, y + 8), f"{on_board[public.faction]} / {public.reserves} / {public.tanks}",
                  fill=INK, font=_font(14), anchor="lm")
        y += 21


def _draw_symbols(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    _spice(draw, (x + 10, y + 10), 6)
    draw.text((x + 28, y + 10), "spice on the sand", fill=INK, font=_font(13), anchor="lm")
    y += 24
    draw.rectangle((x, y + 2, x + 20, y + 16), fill=STORM_FILL[TerritoryKind.SAND], outline=STORM_LINE, width=3)
    draw.text((x + 28, y + 9), "the storm's sector (cells darkened)", fill=INK, font=_font(13), anchor="lm")
    y += 22
    draw.rectangle((x, y + 2, x + 20, y + 16), fill=KIND_FILL[TerritoryKind.STRONGHOLD], outline=STRONGHOLD_LINE,
                   width=3)
    draw.text((x + 28, y + 9), "stronghold", fill=INK, font=_font(13), anchor="lm")
    draw.rectangle((x + 115, y + 2, x + 135, y + 16), fill=KIND_FILL[TerritoryKind.ROCK], outline=CELL_LINE)
    draw.text((x + 143, y + 9), "rock", fill=INK, font=_font(13), anchor="lm")
    draw.rectangle((x + 190, y + 2, x + 210, y + 16), fill=KIND_FILL[TerritoryKind.SAND], outline=CELL_LINE)
    draw.text((x + 218, y + 9), "sand", fill=INK, font=_font(13), anchor="lm")
    y += 22
    draw.rectangle((x, y + 2, x + 20, y + 16), outline=FACTION_COLOURS[Faction.BENE_TLEILAXU][0], width=4)
    draw.text((x + 28, y + 9), "controlled by the Bene Tleilaxu (BT-24)", fill=INK, font=_font(13), anchor="lm")
    y += 22
    draw.ellipse((x + 4, y + 3, x + 16, y + 15), fill="#ffffff", outline=INK)
    draw.text((x + 28, y + 9), "player dot (A-4), in its faction's colour", fill=INK, font=_font(13), anchor="lm")
    y += 22
    _advisor_badge(draw, (x + 10, y + 9), 2)
    draw.text((x + 28, y + 9), "Bene Gesserit advisors, not fighting (A-15)", fill=INK, font=_font(13), anchor="lm")


def _draw_key_table(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    draw.text((x, y), "Territories (* stronghold)", fill=INK, font=_font(14))
    keys = _layout()[1]
    names = sorted(keys, key=lambda name: keys[name])
    column = (len(names) + 1) // 2
    for i, name in enumerate(names):
        cx, cy = x + (i // column) * 195, y + 20 + (i % column) * 15
        star = "*" if load_game_data().board.territory(name).kind == TerritoryKind.STRONGHOLD else ""
        draw.text((cx, cy), f"{keys[name]}{star}", fill=INK, font=_font(12))
        draw.text((cx + 40, cy), name, fill=INK, font=_font(12))


def _draw_own(draw: ImageDraw.ImageDraw, seen: PlayerView) -> None:
    """What only the viewer knows: its spice behind the shield and, for the BT, its traps (BT-30)."""
    own = seen.own
    if own is None:
        return
    x, y = PANEL_X, OWN_Y
    draw.text((x, y), "Only you see this:", fill=STORM_LINE, font=_font(14))
    y += 20
    draw.text((x, y), f"Your spice: {own.spice}", fill=INK, font=_font(13))
    y += 18
    for stronghold, card in sorted(own.trap_cards.items()):
        _trap_flag(draw, (x + 5, y + 7))
        draw.text((x + 16, y), f"trap in {stronghold}: {card_name(card)}", fill=INK, font=_font(13))
        y += 18


@cache
def _palette() -> Image.Image:
    """A fixed palette: the map's colours and the blends that the smooth edges of its text make with what
    lies under them. Mapping onto it is several times faster than choosing a palette per picture, and the
    same state always gives the same bytes."""
    def rgb(colour: str) -> tuple[int, int, int]:
        return ImageColor.getrgb(colour)[:3]

    under_ink = [BACKGROUND, *KIND_FILL.values(), *STORM_FILL.values()]
    text_pairs = [(INK, under) for under in under_ink] + [(STORM_LINE, BACKGROUND), ("white", TRAP_FILL),
                                                           ("black", SPICE_FILL)]
    text_pairs += [(text, fill) for fill, text in FACTION_COLOURS.values()]
    solid = [BACKGROUND, INK, CELL_LINE, STRONGHOLD_LINE, STORM_LINE, SPICE_FILL, TRAP_FILL, "white", "black",
             *under_ink, *(fill for fill, _ in FACTION_COLOURS.values())]
    colours = [rgb(c) for c in solid]
    for text, under in text_pairs:
        t, u = rgb(text), rgb(under)
        for step in range(1, 8):
            red, green, blue = (round(u[i] + (t[i] - u[i]) * step / 8) for i in range(3))
            colours.append((red, green, blue))
    unique = list(dict.fromkeys(colours))
    palette = Image.new("P", (1, 1))
    palette.putpalette([value for colour in unique for value in colour])
    return palette


def render_map(state: GameState, viewer: Faction | None) -> bytes:
    """The map as `viewer` may see it (None: the table), as PNG bytes."""
    return render_view(view(state, viewer))


def render_view(seen: PlayerView) -> bytes:
    """The map of what a view shows, as PNG bytes."""
    image = _board().copy()
    draw = ImageDraw.Draw(image)
    _draw_disc(draw, seen)
    _draw_corner(draw, seen)
    _draw_factions(draw, seen)
    _draw_own(draw, seen)
    small = image.quantize(palette=_palette(), dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="PNG", compress_level=3)  # PNG's `optimize` would save a tenth for 4x the time
    return out.getvalue()
