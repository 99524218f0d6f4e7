# cardtable: the usual entry points. `make test` and `make demo` are all a new user needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.cardtable-installed
BENCH_GAME ?= tablanette
BENCH_SECONDS ?= 3

.PHONY: install test demo bench lint

install: $(STAMP)

# Reinstall only when the project's dependencies change; the install is editable, so code edits need nothing.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: install
	$(BIN)/pytest

demo: install
	$(BIN)/cardtable watch tablanette --seed 7 --policy greedy --policy random

bench: install
	$(BIN)/cardtable bench --game $(BENCH_GAME) --policy random --seconds $(BENCH_SECONDS)

lint: install
	$(BIN)/ruff check .
