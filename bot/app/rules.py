"""The rules at hand: the text of every ruling (A-n) and Bene Tleilaxu rule (BT-n, R-n), from data/rules.json,
looked up by id (as refusals name them) or by words."""

from __future__ import annotations

import json
import re
from functools import cache

from engine.data import DATA_DIR

RULES_FILE = DATA_DIR / "rules.json"
MAX_MATCHES = 5


@cache
def all_rules() -> dict[str, str]:
    data = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    return dict(data["rules"])


def find_rules(query: str) -> list[tuple[str, str]]:
    """Rules named in the query (e.g. "BT-23", "[R-7]"), else those containing every word of it."""
    rules = all_rules()
    named = [rid.upper() for rid in re.findall(r"\b(?:A|BT|R)-\d+\b", query, flags=re.IGNORECASE)]
    if named:
        return [(rid, rules[rid]) for rid in named if rid in rules]
    words = [w.lower() for w in re.findall(r"\w+", query)]
    if not words:
        return []
    hits = [(rid, text) for rid, text in rules.items() if all(w in text.lower() for w in words)]
    return hits[:MAX_MATCHES]
