"""The rules at hand, from data/rules.json: every ruling (A-n) and Bene Tleilaxu rule (BT-n, R-n) by its id, and the
1979 rules' sections that cards and refusals cite by name ("Setup: traitors", "1979 rules: Battles"), looked up by
what a card or refusal cites, or by words."""

from __future__ import annotations

import json
import re
from functools import cache

from engine.data import DATA_DIR

RULES_FILE = DATA_DIR / "rules.json"
MAX_MATCHES = 5
RULE_ID = re.compile(r"\b(?:A|BT|R)-\d+\b", flags=re.IGNORECASE)
CITED = re.compile(r"^\s*\[([^\]]+)\]")  # a refusal begins with the rule it cites: "[1979 rules: Battles] ..."
CITATION_PREFIX = re.compile(r"^1979 rules:?\s*")  # the engine cites a section as "1979 rules: <section>"


@cache
def _data() -> dict:
    return json.loads(RULES_FILE.read_text(encoding="utf-8"))


def all_rules() -> dict[str, str]:
    """The numbered rules, by id."""
    return dict(_data()["rules"])


def sections() -> dict[str, str]:
    """The 1979 rules' sections the game cites by name, by name."""
    return {name: section["text"] for name, section in _data()["sections"].items()}


def _key(citation: str) -> str:
    return CITATION_PREFIX.sub("", " ".join(citation.strip().lower().split()))


@cache
def section_names() -> dict[str, str]:
    """Every name a section is cited by (its own and its aliases, without "1979 rules:"), to its own name."""
    names = {}
    for name, section in _data()["sections"].items():
        for cited in (name, *section["aliases"]):
            names[_key(cited)] = name
    return names


def cited_rule(citation: str) -> tuple[str, str] | None:
    """The rule a card or a refusal cites ("BT-23", "Setup: traitors", "1979 rules: Battles"), or None."""
    rules = all_rules()
    if citation.strip().upper() in rules:
        return citation.strip().upper(), rules[citation.strip().upper()]
    name = section_names().get(_key(citation))
    return (name, sections()[name]) if name is not None else None


def find_rules(query: str) -> list[tuple[str, str]]:
    """The rules a query asks for: the one a refusal begins with ("[BT-23] ..."), those it names by id, or the
    section it cites, else
    those holding every word of it, a section whose name holds them first ("bidding" gives Bidding, then the
    rulings that mention bidding)."""
    bracket = CITED.match(query)
    if bracket and (found := cited_rule(bracket.group(1))) is not None:
        return [found]
    rules = all_rules()
    named = [rid.upper() for rid in RULE_ID.findall(query)]
    if named:
        return [(rid, rules[rid]) for rid in dict.fromkeys(named) if rid in rules]
    cited = cited_rule(query)  # a section named whole ("Setup: traitors") comes first, the word hits after it
    words = [w.lower() for w in re.findall(r"\w+", CITATION_PREFIX.sub("", query.strip().lower()))]
    if not words:
        return [cited] if cited else []
    everything = [*sections().items(), *rules.items()]
    by_name = [*([cited] if cited else []), *((name, text) for name, text in sections().items()
                                              if (name, text) != cited and all(w in name.lower() for w in words))]
    by_text = [(rid, text) for rid, text in everything
               if (rid, text) not in by_name and all(w in text.lower() for w in words)]
    return (by_name + by_text)[:MAX_MATCHES]
