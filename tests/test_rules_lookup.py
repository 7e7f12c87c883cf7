"""/rules: every rule a card or a refusal cites has its text at hand, found by what it cites (bot issue, item 12;
issue 25, item 13)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.app.decision_cards import KIND_RULES
from bot.app.rules import all_rules, cited_rule, find_rules
from engine.model import PromptKind
from engine.rules.anytime import RULES as ANYTIME_RULES
from engine.rules.refusals import SETUP_RULES

ROOT = Path(__file__).resolve().parent.parent
SHARED_RULES = ROOT.parent / "shared" / "rules"  # the rules in our own words, beside the repository
NUMBERED = re.compile(r"^- ((?:A|BT|R)-\d+)\b", flags=re.MULTILINE)
# A citation of a section of the 1979 rules, as the engine writes one: "1979 rules: Battles", "Setup: traitors"
SECTION_CITATION = re.compile(r"^(?:1979 rules|Setup|Treachery)(?:: [^.]+)?$|^(?:Admin|Engine)$")  # not a sentence


def test_every_numbered_rule_of_the_shared_rules_is_there():
    if not SHARED_RULES.is_dir():
        pytest.skip("shared/rules is not beside this checkout")
    listed = set()
    for name in ("base-game.md", "bene-tleilaxu.md"):
        listed |= set(NUMBERED.findall((SHARED_RULES / name).read_text(encoding="utf-8")))
    rules = all_rules()
    assert listed and not listed - set(rules), sorted(listed - set(rules))
    assert all(rules[rule] and not rules[rule][0].islower() for rule in rules)  # whole sentences, none cut in two


def test_every_rule_the_engine_names_can_be_looked_up():
    named = set()
    for path in (ROOT / "engine").rglob("*.py"):
        named |= set(re.findall(r'"((?:A|BT|R)-\d+)"', path.read_text()))
    assert named and named <= set(all_rules()), sorted(named - set(all_rules()))


def _section_citations() -> set[str]:
    """Every string in the engine's code that cites a section of the 1979 rules (refusals, cards' rules)."""
    cited = set()
    for path in (ROOT / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SECTION_CITATION.match(node.value):
                cited.add(node.value)
    return cited


def test_every_citation_on_a_card_or_a_refusal_finds_its_own_rule_first():
    cards = {KIND_RULES[kind] for kind in PromptKind}  # every kind has a rule (KeyError otherwise)
    citations = cards | set(ANYTIME_RULES.values()) | set(SETUP_RULES.values()) | _section_citations()
    assert {"Setup: traitors", "Treachery: Truthtrance", "Setup: starting tokens", "1979 rules: Battles"} <= citations
    for citation in sorted(citations):
        found = cited_rule(citation)
        assert found is not None, f"/rules finds nothing for {citation!r}"
        assert find_rules(citation)[0] == found
        assert find_rules(f"[{citation}] That is not allowed now (A-13).")[0] == found  # as a refusal reads


def test_a_word_search_puts_the_base_rules_own_section_first():
    assert [rid for rid, _ in find_rules("bidding")][:2] == ["Bidding", "A-3"]
    assert [rid for rid, _ in find_rules("Setup: traitors")] == ["Setup: traitors", "Setup"]
    assert [rid for rid, _ in find_rules("storm")][:2] == ["Storm", "Storm cards"]


def test_lookup_by_id_as_a_refusal_prints_it_and_by_words():
    assert find_rules("[BT-23] That reveal has no effect.")[0][0] == "BT-23"
    assert find_rules("bt-2")[0][1].startswith("The BT may join games of 3 to 7 players")
    assert [rid for rid, _ in find_rules("player cannot refuse")] == ["BT-40"]
    assert [rid for rid, _ in find_rules("hand limit")] == ["Bidding", "BT-4", "BT-40", "R-2"]
    assert find_rules("") == [] and find_rules("xyzzy plugh") == []
