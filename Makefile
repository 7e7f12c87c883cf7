# One environment for everything: .venv, built from pyproject.toml.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test lint demo clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11+ not found; set PYTHON=..."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

lint: venv
	$(BIN)/ruff check engine bot tests

test: lint
	$(BIN)/python -m pytest

demo: venv
	$(BIN)/python -m engine demo

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache
