"""/rules: every rule a refusal can name has its text at hand (bot issue, item 12)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.app.rules import all_rules, find_rules

SHARED_RULES = ["A-1", "A-28", "BT-1", "BT-23", "BT-60", "R-1", "R-2", "R-34"]


def test_every_numbered_rule_is_there():
    rules = all_rules()
    assert all(rule in rules and rules[rule] for rule in SHARED_RULES)
    assert sum(r.startswith("A-") for r in rules) == 28 and sum(r.startswith("R-") for r in rules) == 34


def test_every_rule_the_engine_names_can_be_looked_up():
    engine = Path(__file__).resolve().parent.parent / "engine"
    named = set()
    for path in engine.rglob("*.py"):
        named |= set(re.findall(r'"((?:A|BT|R)-\d+)"', path.read_text()))
    assert named and named <= set(all_rules()), sorted(named - set(all_rules()))


def test_lookup_by_id_as_a_refusal_prints_it_and_by_words():
    assert find_rules("[BT-23] That reveal has no effect.")[0][0] == "BT-23"
    assert find_rules("bt-2")[0][1].startswith("The BT may join games of 3 to 7 players")
    assert [rid for rid, _ in find_rules("player cannot refuse")] == ["BT-40"]
    assert [rid for rid, _ in find_rules("hand limit")] == ["BT-4", "BT-40", "R-2"]
    assert find_rules("") == [] and find_rules("xyzzy plugh") == []
