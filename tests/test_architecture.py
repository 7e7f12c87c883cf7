"""The engine is pure: no I/O, no asyncio, no clock, no `random`, nothing from the bot or Discord."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"
FORBIDDEN = {"bot", "discord", "asyncio", "aiosqlite", "random", "time", "datetime", "socket", "requests"}
# The command line and the data loader are the engine's only doors to files.
IO_ALLOWED = {"__main__.py", "data.py", "record.py"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.py")), ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_imports_nothing_impure(path):
    forbidden = FORBIDDEN - {"time"} if path.name == "__main__.py" else FORBIDDEN  # the CLI times autoplay
    assert not (_imports(path) & forbidden), f"{path.name} imports {_imports(path) & forbidden}"
    if path.name not in IO_ALLOWED:
        source = path.read_text()
        assert "open(" not in source and "read_text(" not in source and "print(" not in source


BOT = ENGINE.parent / "bot"


@pytest.mark.parametrize("path", sorted((BOT / "app").rglob("*.py")) + sorted((BOT / "store").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(BOT)))
def test_the_application_layer_is_discord_free(path):
    """The service and the stores serve the Discord bot, the console and the tests alike."""
    assert "discord" not in _imports(path)
