"""Issue 27 item 3: a game's settings (GameRecordRow.settings) have a model, bot/app/settings_model.py GameSettings,
that names and types every key the bot keeps there. A row is checked when read; the stored object stays as it was,
keys the model does not know included (a newer Mentat's, after a rollback)."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.app.paces import Pace
from bot.app.ports import GameRecordRow, GameStatus
from bot.app.settings_model import GameSettings

BOT = Path(__file__).resolve().parent.parent / "bot"
NOW = "2026-12-02T14:00:00+00:00"
LATER = "2026-12-03T14:00:00+00:00"
DECISION = "atreides/bid/12"

# Every key in use, as the bot writes them (bot/app/service.py, absence.py, hours.py, votes.py, seats.py, trouble.py,
# delivery.py).
EVERY_KEY = {
    "pace": "daily", "deadlines": {"*": 86400, "bid": 600}, "reminded": {DECISION: "half"}, "grace": {DECISION: 3600},
    "creator": 1234, "paused_at": NOW, "paused_for": {DECISION: 60}, "default_refused": {DECISION: "no default"},
    "stalled_at": NOW, "cancelled": {"by": "mod#1", "reason": "abandoned"}, "unreachable": ["fremen"],
    "former_players": {"atreides": [1, 2]}, "seat_calls": {"atreides": 3}, "seat_calls_made": 3,
    "absence": "defaults",
    "away": {"fremen": {"since": NOW, "until": LATER, "ends": LATER, "stops": [[NOW, NOW]]}},
    "away_past": {"fremen": [[NOW, NOW]]}, "away_for": {DECISION: 120},
    "quiet_owed": {"harkonnen": {"until": LATER, "silenced": 2}},
    "table_vote": {"number": 1, "kind": "pause", "caller": "emperor", "opened": NOW, "closes": LATER, "hours": 2.5,
                   "faction": None, "answers": {"emperor": True}},
    "table_vote_passed": {"number": 0, "kind": "extend", "caller": "fremen", "opened": NOW, "closes": LATER,
                          "hours": 4.0, "faction": "harkonnen", "answers": {"fremen": True, "emperor": True}},
    "table_votes_made": 1, "table_pause": {"since": NOW, "until": LATER},
    "troubles_told": {"stuck:" + DECISION: NOW},
}
# A game as an older Mentat kept it: reminders as a list of prompt ids, per-decision maps by prompt id, no newer key.
OLD_GAME = {"pace": "none", "deadlines": {"*": 3600}, "reminded": ["p1", "p2"], "grace": {"p3": 600}, "creator": 7}


def row(settings: dict) -> GameRecordRow:
    return GameRecordRow(game_id="g1", guild_id=1, channel_id=2, status=GameStatus.RUNNING, setup_json="{}",
                         state_json="{}", seq=0, settings=settings)


def keys_used_in_bot() -> set[str]:
    """The settings keys the bot reads or writes: string keys (or module constants naming them) subscripted or
    looked up on something called settings, or set beside `**settings` in a dict display."""
    constants: dict[str, str] = {}
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in sorted(BOT.rglob("*.py"))]
    for tree in trees:
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                constants.setdefault(node.targets[0].id, node.value.value)

    def word(key: ast.expr) -> str | None:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
        name = key.id if isinstance(key, ast.Name) else key.attr if isinstance(key, ast.Attribute) else None
        return constants.get(name) if name and name.isupper() else None

    def is_settings(node: ast.expr) -> bool:  # settings, row.settings, settings_before, ...
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        return "settings" in name

    used = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and is_settings(node.value):
                used.add(word(node.slice))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
                  and node.func.attr in ("get", "pop", "setdefault") and is_settings(node.func.value)):
                used.add(word(node.args[0]))
            elif isinstance(node, ast.Dict) and any(key is None and is_settings(value)
                                                    for key, value in zip(node.keys, node.values, strict=True)):
                used |= {word(key) for key in node.keys if key is not None}
    return used - {None}


def test_every_key_the_bot_uses_is_a_field():
    used = keys_used_in_bot()
    assert {"pace", "deadlines", "paused_at", "table_vote", "away", "quiet_owed"} <= used  # the scan finds them
    assert sorted(used - set(GameSettings.model_fields)) == []


def test_every_field_is_in_the_example_of_every_key():
    assert sorted(set(GameSettings.model_fields) ^ set(EVERY_KEY)) == []


def test_a_row_with_every_key_reads_and_keeps_its_settings_as_stored():
    stored = row(EVERY_KEY)
    assert stored.settings == EVERY_KEY
    settings = GameSettings.of(stored.settings)
    assert settings.pace == Pace.DAILY and settings.deadlines["bid"] == 600
    assert settings.paused_at == datetime(2026, 12, 2, 14, tzinfo=UTC)
    assert settings.table_vote is not None and settings.table_vote.answers == {"emperor": True}
    assert settings.away["fremen"].stops[0][0] == settings.paused_at


def test_an_old_games_settings_read_with_defaults_for_the_newer_keys():
    assert row(OLD_GAME).settings == OLD_GAME
    settings = GameSettings.of(OLD_GAME)
    assert settings.reminded == ["p1", "p2"] and settings.grace == {"p3": 600}
    assert settings.absence == "wait" and settings.away == {} and settings.paused_at is None
    assert GameSettings.of({}) == GameSettings()


def test_a_key_the_model_does_not_know_is_kept():
    newer = {**OLD_GAME, "from_a_newer_mentat": {"x": 1}}
    assert row(newer).settings == newer


@pytest.mark.parametrize("wrong", [{"pace": "hourly"}, {"deadlines": {"*": "soon"}}, {"paused_at": "yesterday"},
                                   {"away": {"fremen": {"since": NOW}}}, {"reminded": {DECISION: "early"}}])
def test_a_key_holding_what_it_never_held_refuses_the_row(wrong):
    with pytest.raises(ValidationError):
        row(wrong)
