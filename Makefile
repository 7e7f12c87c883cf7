# One environment for everything: .venv, built from pyproject.toml.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test lint demo clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) not found; set PYTHON=..."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
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
