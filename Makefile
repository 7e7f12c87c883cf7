# One environment for everything: .venv, built from pyproject.toml.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test lint mypy crash noninterference demo bench playthrough wheel-check clean rules-map life

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11+ not found; set PYTHON=..."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

lint: venv
	$(BIN)/ruff check engine bot tests

# The rules engine typed strictly, the bot with mypy's defaults (pyproject.toml [tool.mypy] and its override for
# bot/; the pydantic plugin); a few seconds with its cache in .mypy_cache (delete it when a result looks stale).
mypy: venv
	$(BIN)/mypy

# The tests start their own throwaway PostgreSQL server (tests/postgres_server.py); without one installed they
# say the PostgreSQL tests did not run (with CI=true they fail).
test: lint mypy
	$(BIN)/python -m pytest

# The package as an admin installs it: the wheel built, installed in a fresh virtual environment outside the source
# tree, and `mentat check` run there (CI runs it after make test).
wheel-check:
	bash .ci/wheel_check.sh

# The crash test at full strength: the console killed 100 times on each store (`make test` kills it 4 times).
crash: venv
	CRASH_KILLS=100 $(BIN)/python -m pytest tests/test_crash.py -k killed_mid_game

# The non-interference check at full strength (tests/noninterference.py): 300 random games, one secret changed at
# a time, every other viewer shown the same; prints its figures (`make test` runs a 20-game sample).
noninterference: venv
	$(BIN)/python -m tests.noninterference --games 300

# The demo needs only the runtime dependencies: on a fresh clone it installs those alone (about half the time of
# the dev extras, which `make venv` and `make test` add later).
RUNTIME := $(VENV)/.runtime

$(RUNTIME): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11+ not found; set PYTHON=..."; exit 1; }
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then touch $@; else \
		test -x $(BIN)/python || $(PYTHON) -m venv $(VENV); \
		$(BIN)/python -m pip install --quiet -e . && touch $@; fi

# A whole 7-faction game with the BT, played by automatic players through the bot's service and the
# console front; writes out/demo/ (channel, DM inboxes, game.json, a map per turn) and prints a report.
demo: $(RUNTIME)
	$(BIN)/python -m bot.console.demo --out out/demo

# The performance figures (engine, service, load, map, 10,000 games on SQLite and on a throwaway PostgreSQL with
# one and two bot processes, and a click's delivery through the Discord model, which runs the bot in SimCord: the
# dev extras): tables, and out/bench.json. Not part of the tests. `python -m bench --only scale --store postgres`
# measures the scale figures alone, on one store; `--only delivery` the delivery figures.
bench: venv
	$(BIN)/python -m bench --json out/bench.json

# A whole 7-faction game with the BT and every option, played in SimCord (the real bot) by random players who use
# only the controls the bot offers; the moderator forces what no control answers. The last line is a JSON summary.
SEED ?= 1
playthrough: venv
	$(BIN)/python -m tests.playthrough --seed $(SEED)

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache .mypy_cache

# docs/rules-map.md, made again from the rules the code and the tests cite (make test checks it is current).
rules-map: venv
	$(BIN)/python -m tests.rules_map --write

# Issue 26's acceptance game: seven time zones with quiet hours, an absence, a substitute voted in (about 15 min).
life: venv
	$(BIN)/python -m tests.playthrough_life --seed $(or $(SEED),1)
