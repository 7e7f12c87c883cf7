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


# The engine's layers, lowest first: a module may import its own layer and those below it, never one above. The
# core holds what every rule needs (ids, the state, actions, events, names, the prompt machinery); the rules are
# the phases, the rules that span them and each faction's powers (they call one another: one layer); the door
# applies an action and the secrecy room shows a reader their view; the record and the checks drive the door;
# positions load a scenario and run it; the package and its command line are the fronts.
ENGINE_LAYERS = [
    ("core", ["engine.version", "engine.ids", "engine.options", "engine.rng", "engine.data", "engine.model",
              "engine.events", "engine.names", "engine.errors", "engine.actions", "engine.flow"]),
    ("rules", ["engine.rules", "engine.phases", "engine.factions"]),
    ("door", ["engine.game", "engine.secrecy"]),
    ("record and checks", ["engine.record", "engine.checks"]),
    ("positions", ["engine.positions"]),
    ("fronts", ["engine", "engine.__main__"]),
]
# The bot's: the application (Discord-free) below the stores that implement its ports, below the fronts; the
# Discord front reaches the games through the service only (no store).
BOT_LAYERS = [
    ("application", ["bot.app", "bot.config"]),
    ("stores", ["bot.store"]),
    ("fronts", ["bot.discord", "bot.console", "bot.process", "bot.__main__", "bot"]),
]
ROOT_MODULES_AT_MOST = 15


def layer_of(module: str, layers: list[tuple[str, list[str]]]) -> int:
    """The layer of a module: the one naming it or the package it is in (the longest name that matches)."""
    best, depth = None, -1
    for number, (_, names) in enumerate(layers):
        for name in names:
            if (module == name or module.startswith(name + ".")) and name.count(".") > depth:
                best, depth = number, name.count(".")
    assert best is not None, f"{module} is in no layer: add it to the layers above"
    return best


def upward_imports(graph: dict[str, set[str]], layers: list[tuple[str, list[str]]]) -> list[str]:
    return sorted(f"{module} ({layers[layer_of(module, layers)][0]}) imports {target} "
                  f"({layers[layer_of(target, layers)][0]})"
                  for module, targets in graph.items() for target in targets
                  if layer_of(target, layers) > layer_of(module, layers))


def test_the_layer_check_sees_an_upward_import(tmp_path):
    package = tmp_path / "engine"
    (package / "rules").mkdir(parents=True)
    for path in ("__init__.py", "game.py", "ids.py", "rules/__init__.py", "rules/board.py"):
        (package / path).write_text("")
    (package / "rules" / "board.py").write_text("from engine.game import apply\nfrom engine.ids import Faction\n")
    assert upward_imports(import_graph(package), ENGINE_LAYERS) == [
        "engine.rules.board (rules) imports engine.game (door)"]


@pytest.mark.parametrize("package, layers", [(ENGINE, ENGINE_LAYERS), (BOT, BOT_LAYERS)], ids=["engine", "bot"])
def test_imports_only_point_down(package, layers):
    assert upward_imports(import_graph(package), layers) == []


def test_the_discord_front_goes_through_the_service_only():
    """No import of a store, and no reach through the service to its store (`service.store`), in bot/discord."""
    graph = import_graph(BOT)
    assert not [f"{m} imports {t}" for m, targets in graph.items() if m.startswith("bot.discord")
                for t in targets if t.startswith("bot.store")]
    reaching = [f"{path.relative_to(BOT)}:{number}" for path in sorted((BOT / "discord").rglob("*.py"))
                for number, line in enumerate(path.read_text().splitlines(), 1) if ".store." in line
                or line.rstrip().endswith(".store")]
    assert reaching == []


def test_the_engine_root_keeps_the_core_only():
    """Issue 27: every module but the core sits in a folder named for its kind (rules, phases, factions,
    positions, secrecy, checks)."""
    root = sorted(path.name for path in ENGINE.glob("*.py"))
    assert len(root) <= ROOT_MODULES_AT_MOST, root
    folders = sorted(path.name for path in ENGINE.iterdir() if (path / "__init__.py").exists())
    assert folders == ["checks", "factions", "phases", "positions", "rules", "secrecy"]


TESTS = ENGINE.parent / "tests"


def imports_of_test_modules(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a test module (tests/test_*.py) by another module of tests/: what several test files
    share lives in tests/helpers (or tests/conftest.py), so that a test file is a leaf nobody imports."""
    return sorted(f"{module} imports {target}" for module, targets in graph.items() for target in targets
                  if target.rpartition(".")[2].startswith("test_"))


def test_the_test_module_check_sees_an_import_of_a_test_module(tmp_path):
    package = tmp_path / "tests"
    (package / "helpers").mkdir(parents=True)
    for path in ("__init__.py", "conftest.py", "test_a.py", "test_b.py", "helpers/__init__.py", "helpers/board.py"):
        (package / path).write_text("")
    (package / "test_a.py").write_text("from tests.helpers.board import arena\nfrom tests.conftest import start\n")
    (package / "test_b.py").write_text("def test_b():\n    from tests import test_a\n")
    (package / "helpers" / "board.py").write_text("import tests.test_b\n")
    assert imports_of_test_modules(import_graph(package)) == [
        "tests.helpers.board imports tests.test_b", "tests.test_b imports tests.test_a"]


def test_no_test_module_imports_another():
    """Issue 27: a test file imports its helpers from tests/helpers, never from another test file."""
    graph = import_graph(TESTS)
    assert any(module.startswith("tests.helpers.") for module in graph)
    assert imports_of_test_modules(graph) == []
