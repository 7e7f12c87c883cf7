"""`python -m tests.rules_map [--write]`: docs/rules-map.md, the map from each rule to its rooms, made from what the
code and the tests cite (issue 27 item 5). A rule is every ruling (A-n), Bene Tleilaxu rule (BT-n) and ruling on
the variant (R-n) of data/rules.json, and every 1979 section the game cites by name ("Setup: traitors", "1979
rules: Battles"). The modules that decide a rule are those of engine/ and bot/ that cite it (its id anywhere in
the source, or a section's name as a string: bot/app/rules.cited_rule reads it as the bot's /rules does); the
tests that check it are those whose name or docstring cites it (`test_bt_23_...`, "R-7: ...", a section as
"1979 rules: Setup: traitors" or "[Admin]"). A rule cited
nowhere is listed as such. Without `--write` it prints the map; tests/test_rules_map.py checks that the file
is current.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from bot.app.rules import all_rules, cited_rule, section_names, sections

ROOT = Path(__file__).resolve().parent.parent
MAP_FILE = ROOT / "docs" / "rules-map.md"
RULE_ID = re.compile(r"(?<![\w-])(A|BT|R)-(\d+)(?![\w-])")
TEST_NAME_ID = re.compile(r"(?:^|_)(a|bt|r)_(\d+)(?=_|$)")
SUMMARY_LENGTH = 70
# A section a test's docstring cites: one of its names after "1979 rules: " or in brackets, as a refusal cites it
# ("[Engine]"); the longest name first ("Shipment (Fremen)" before "Shipment"), as a whole word.
SECTION_CITED = re.compile(r"(?:1979 rules:\s*|\[)("
                           + "|".join(re.escape(name) for name in sorted(section_names(), key=len, reverse=True))
                           + r")(?![\w])", flags=re.IGNORECASE)


def _rule_order(rule: str) -> tuple[int, int, str]:
    """A-n, then BT-n, then R-n, by number; then the sections in the order of data/rules.json."""
    found = RULE_ID.fullmatch(rule)
    if found is None:
        return 3, list(sections()).index(rule), rule
    return ("A", "BT", "R").index(found[1]), int(found[2]), rule


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def cited_in_code(path: Path) -> set[str]:
    """The rules a module of engine/ or bot/ cites: ids anywhere in its text, sections as string literals."""
    text = path.read_text(encoding="utf-8")
    cited = {f"{kind}-{number}" for kind, number in RULE_ID.findall(text)}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 80:
            found = cited_rule(node.value)
            if found is not None and found[0] in sections():
                cited.add(found[0])
    return cited


def cited_by_tests(path: Path) -> dict[str, set[str]]:
    """Each test of a test module (module::name) -> the rules its name or its docstring cites."""
    tests = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
            cited = {f"{kind.upper()}-{number}" for kind, number in TEST_NAME_ID.findall(node.name)}
            doc = ast.get_docstring(node) or ""
            cited |= {f"{kind}-{number}" for kind, number in RULE_ID.findall(doc)}
            cited |= {section_names()[name.lower()] for name in SECTION_CITED.findall(" ".join(doc.split()))}
            if cited:
                tests[f"{path.name}::{node.name}"] = cited
    return tests


def rules_map() -> str:
    rules = {**all_rules(), **sections()}
    deciding: dict[str, list[str]] = {rule: [] for rule in rules}
    checking: dict[str, list[str]] = {rule: [] for rule in rules}
    for package in ("engine", "bot"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for rule in cited_in_code(path) & rules.keys():
                deciding[rule].append(_module(path))
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for test, cited in cited_by_tests(path).items():
            for rule in cited & rules.keys():
                checking[rule].append(test)
    lines = ["# Rules map", "",
             "Made by `python -m tests.rules_map --write` from the rules the code and the tests cite (do not edit",
             "by hand; CI checks it is current: tests/test_rules_map.py). For each rule of data/rules.json: the",
             "modules that cite it (where it is decided, or told) and the tests whose name or docstring cites it.", ""]
    uncited = sorted((rule for rule in rules if not deciding[rule] and not checking[rule]), key=_rule_order)
    lines += ["Cited nowhere: " + (", ".join(uncited) if uncited else "none") + ".", ""]
    for rule in sorted(rules, key=_rule_order):
        summary = " ".join(rules[rule].split())
        summary = summary if len(summary) <= SUMMARY_LENGTH else summary[:SUMMARY_LENGTH - 1].rstrip() + "…"
        lines += [f"## {rule}", "", f"{summary}", ""]
        lines.append("- Modules: " + (", ".join(f"`{m}`" for m in deciding[rule]) if deciding[rule] else "none"))
        tests = checking[rule]
        lines.append("- Tests: " + (", ".join(f"`{t}`" for t in tests) if tests else "none"))
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = rules_map()
    if "--write" in argv:
        MAP_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {MAP_FILE.relative_to(ROOT)}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
