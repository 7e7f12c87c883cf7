"""docs/rules-map.md (issue 27 item 5): current, and whole."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.app.rules import all_rules
from tests.rules_map import MAP_FILE, ROOT, cited_by_tests, cited_in_code, rules_map

SHARED_BT_RULES = ROOT.parent / "shared" / "rules" / "bene-tleilaxu.md"


def test_the_rules_map_is_current():
    """Regenerate it with `python -m tests.rules_map --write` after citing a rule in code or in a test's name."""
    assert MAP_FILE.read_text(encoding="utf-8") == rules_map()


def test_the_map_lists_every_rule_of_the_bene_tleilaxu_text():
    if not SHARED_BT_RULES.exists():
        pytest.skip("the team's rules text is not beside this checkout")
    numbered = set(re.findall(r"\b(?:BT|R)-\d+\b", SHARED_BT_RULES.read_text(encoding="utf-8")))
    headed = set(re.findall(r"^## ((?:BT|R)-\d+)$", MAP_FILE.read_text(encoding="utf-8"), flags=re.MULTILINE))
    assert numbered and numbered <= headed <= all_rules().keys()


def test_a_citation_is_read_from_ids_sections_and_test_names(tmp_path: Path):
    module = tmp_path / "storm.py"
    module.write_text('RULE = "1979 rules: Battles"  # and BT-23, not XBT-4 nor A-15x\nTRAITORS = "Setup: traitors"\n')
    assert cited_in_code(module) == {"BT-23", "Battles", "Setup: traitors"}
    tests = tmp_path / "test_x.py"
    tests.write_text('def test_bt_20_a_mark():\n    """R-7: too."""\n\ndef test_data_loads():\n    pass\n')
    assert cited_by_tests(tests) == {"test_x.py::test_bt_20_a_mark": {"BT-20", "R-7"}}
