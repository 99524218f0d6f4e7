# cardtable: the usual entry points. `make test` and `make demo` are all a new user needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.cardtable-installed
BENCH_GAME ?= tablanette
BENCH_SECONDS ?= 3

.PHONY: install test demo bench lint

NODE_CLIENT := tests/clients/node
NODE_STAMP := $(NODE_CLIENT)/node_modules/.package-lock.json
STUBS := services/generated/.generated

install: $(STAMP) $(STUBS) $(NODE_STAMP)

# Reinstall only when the project's dependencies change; the install is editable, so code edits need nothing.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The gRPC stubs are built from protos/, never committed; the Node.js client's packages come from its lock file.
$(STUBS): $(STAMP) $(wildcard protos/cardtable/v1/*.proto) services/protogen.py
	$(BIN)/python -m services.protogen --force

$(NODE_STAMP): $(NODE_CLIENT)/package-lock.json
	npm ci --prefix $(NODE_CLIENT) --no-audit --no-fund --loglevel=error

test: install
	$(BIN)/pytest

demo: install
	$(BIN)/cardtable watch tablanette --seed 7 --policy greedy --policy random

bench: install
	$(BIN)/cardtable bench --game $(BENCH_GAME) --policy random --seconds $(BENCH_SECONDS)

lint: install
	$(BIN)/ruff check .
	$(NODE_CLIENT)/node_modules/.bin/buf lint
