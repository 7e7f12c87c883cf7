"""The engine is pure: no I/O, no asyncio, no clock, no `random`, nothing from the bot or Discord."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"
FORBIDDEN = {"bot", "discord", "asyncio", "sqlite3", "asyncpg", "random", "time", "datetime", "socket", "requests"}
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


def _module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path) -> dict[str, set[str]]:
    """Every module of the package -> the modules of the package it imports, anywhere in its body (an import
    inside a function hides a circle; it does not break one)."""
    modules = {_module_name(p, package): p for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from engine.phases import bt_attack` imports the module engine.phases.bt_attack
                targets |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                            for alias in node.names}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_the_circle_finder_sees_a_circle_hidden_in_a_function(tmp_path):
    package = tmp_path / "engine"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from engine.b import g\n")
    (package / "b.py").write_text("def g():\n    from engine import a\n")
    (package / "c.py").write_text("import engine.a\n")
    assert import_circles(import_graph(package)) == [["engine.a", "engine.b"]]


@pytest.mark.parametrize("package", [ENGINE, BOT], ids=["engine", "bot"])
def test_no_import_circle(package):
    """A circle is a sign that a responsibility sits in the wrong module: move it, don't hide it (an import under
    TYPE_CHECKING counts too: the Discord handlers reach the bot through common.GameBot, not the client)."""
    assert import_circles(import_graph(package)) == []
