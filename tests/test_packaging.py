"""The installable package (pyproject.toml): every package of the source is in it, the game data with them, and its
version is the engine's. ci/wheel_check.sh builds the wheel, installs it outside the source tree and runs
`mentat check` there."""

from __future__ import annotations

import tomllib
from pathlib import Path

import engine
from engine.data import DATA_DIR, find_data_dir

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def test_the_package_list_names_every_package_of_the_source_and_the_game_data():
    found = {".".join(init.parent.relative_to(ROOT).parts) for top in ("engine", "bot")
             for init in (ROOT / top).rglob("__init__.py")}
    assert set(SETUPTOOLS["packages"]) == found | {"engine.game_data"}
    assert SETUPTOOLS["package-dir"] == {"engine.game_data": "data"}
    assert SETUPTOOLS["package-data"]["engine.game_data"] == ["*.json"]
    assert {path.name for path in (ROOT / "data").glob("*.json")} == {"board.json", "cards.json", "factions.json",
                                                                      "rules.json"}


def test_the_game_data_is_read_from_the_installed_package_or_else_from_the_source_tree(tmp_path):
    source_engine = tmp_path / "source" / "engine"
    source_engine.mkdir(parents=True)
    assert find_data_dir(source_engine) == tmp_path / "source" / "data"
    installed_engine = tmp_path / "site-packages" / "engine"
    (installed_engine / "game_data").mkdir(parents=True)
    assert find_data_dir(installed_engine) == installed_engine / "game_data"
    assert DATA_DIR == ROOT / "data"  # these tests run on the source tree


def test_the_version_is_the_engines_and_the_command_is_mentat():
    assert engine.__version__ == "0.2.0"
    assert PYPROJECT["project"]["dynamic"] == ["version"] and "version" not in PYPROJECT["project"]
    assert SETUPTOOLS["dynamic"]["version"] == {"attr": "engine.version.__version__"}
    assert PYPROJECT["project"]["scripts"] == {"mentat": "bot.__main__:main"}
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{engine.__version__}] - " in changelog  # each release says what changed for an admin
