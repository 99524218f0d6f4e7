# cardtable: the usual entry points. `make test` and `make demo` are all a new user needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.cardtable-installed
BENCH_GAME ?= tablanette
BENCH_SECONDS ?= 3

.PHONY: install engine test test-compiled test-fast test-integration test-e2e demo bench lint

NODE_CLIENT := tests/clients/node
NODE_STAMP := $(NODE_CLIENT)/node_modules/.package-lock.json
STUBS := services/generated/.generated
DEB_STAMP := $(VENV)/.debian-packages
ENGINE_STAMP := $(VENV)/.engine-compiled

install: $(STAMP) $(STUBS) $(NODE_STAMP) $(DEB_STAMP) $(ENGINE_STAMP)

# Reinstall only when the project's dependencies change; the install is editable, so code edits need nothing.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev,pettingzoo,openspiel]'
	touch $(STAMP)

# Debian packages for the other-language tests (protoc with its Java generator, the Go and gRPC-Java plugins; Go with
# its gRPC and protobuf modules, and a JDK with gRPC-Java's jars and theirs, for the Go and Java clients: tests/clients)
# and for the browser tests (Chromium, driven by Playwright: tests/web), and a C compiler with Python's headers for the
# compiled engine, installed once where apt-get is; elsewhere
# those tests say what is missing and skip.
DEB_PACKAGES := protobuf-compiler libprotobuf-java protoc-gen-go protoc-gen-go-grpc protobuf-compiler-grpc-java-plugin \
	golang-go golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev \
	default-jdk-headless libgrpc-java libguava-java libnetty-java libgoogle-gson-java libperfmark-java \
	libgeronimo-annotation-1.3-spec-java \
	chromium gcc python3-dev
$(DEB_STAMP): $(STAMP) Makefile
	@missing=$$(command -v dpkg >/dev/null && for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null; then \
		sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		echo "installing Debian packages:" $$missing; \
		$$sudo apt-get update -qq && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	touch $@

# The engine compiled from its own source (build_engine.py: Cython into build/engine/, each module loaded only while
# its source is unchanged, see engine/_native.py); without a C compiler it says so and the engine runs as Python.
# `make engine` compiles what changed; CARDTABLE_ENGINE=python runs the source whatever is built.
$(ENGINE_STAMP): $(DEB_STAMP) build_engine.py $(shell find engine -name '*.py')
	$(BIN)/python build_engine.py
	touch $@

engine: $(DEB_STAMP)
	$(BIN)/python build_engine.py

# The gRPC stubs are built from protos/, never committed; the Node.js client's packages come from its lock file.
$(STUBS): $(STAMP) $(wildcard protos/cardtable/v1/*.proto) services/protogen.py
	$(BIN)/python -m services.protogen --force

$(NODE_STAMP): $(NODE_CLIENT)/package-lock.json
	npm ci --prefix $(NODE_CLIENT) --no-audit --no-fund --loglevel=error

# The suite's tiers (tests/tiers.py): unit (no I/O: the engine, codec, bots and environments), integration (a real
# Redis, gRPC server, Ray, `cardtable` processes) and e2e (a browser, the clients in other languages). `make test` runs
# them all: the unit tier on every core (pytest-xdist; its tests share nothing), then the others in one process, as
# they share the session's Redis and Ray. The second run goes on after a failed first, and the target fails if either
# did, exit 5 (no test collected) included. Each run imports only the modules that may hold a test of its tier
# (tests/tiers.py's pytest_ignore_collect): the unit tier's workers never import Ray's or the servers' tests, the second
# run never the engine's hypothesis suites. The runs keep Python's bytecode cache (__pycache__/, ignored by git) even
# where $PYTHONDONTWRITEBYTECODE is set: each pytest process and each command or server a test starts would otherwise
# compile the project again.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest
TEST_WORKERS ?= auto
UNIT_TIER := -m unit -n $(TEST_WORKERS) --dist worksteal

test: install
	@status=0; \
	(set -x; $(PYTEST) $(UNIT_TIER)) || status=$$?; \
	(set -x; $(PYTEST) -m "not unit") || status=$$?; \
	(set -x; CARDTABLE_ENGINE=python $(PYTEST) -m unit $(ENGINE_TIER)) || status=$$?; \
	exit $$status

test-fast: $(STAMP) $(STUBS)
	$(PYTEST) $(UNIT_TIER)

# The engine tier: the pinned transcripts and replay fixtures, the rollout loop and clones of every game, the engine's
# shape (from source every attribute a match sets is seen; compiled, a TrickCore field never set reads None), and
# tests/test_native.py (the same matches in both engines, in two processes). `make test` runs the suite on the engine
# `make install` built (compiled where a C compiler is), then this tier's unit tests from the Python source
# (CARDTABLE_ENGINE=python), so both engines play every pinned match; `make test-compiled` runs it under the compiled
# engine only (CARDTABLE_ENGINE=compiled: every module compiled and current, or an error).
ENGINE_TIER := tests/games/test_trick_transcripts.py tests/replays/test_fixtures.py tests/test_play_to_end.py \
	tests/test_reference_cycles.py tests/test_engine_shape.py \
	tests/test_clone.py tests/test_native.py
test-compiled: install
	CARDTABLE_ENGINE=compiled $(BIN)/pytest $(ENGINE_TIER)

test-integration: install
	$(PYTEST) -m integration

test-e2e: install
	$(PYTEST) -m e2e

# The main job on embedded defaults: two simulations of a few thousand deals on a local Ray, a sample of their replays
# in the embedded Valkey, the results, then one logged deal streamed back move by move, and its address in the web
# viewer with the command that serves it.
DEMO_OUT := build/demo
DEMO_DEALS ?= 3000
DEMO_FIRST_REPLAY = $$($(BIN)/python -c 'import json, sys; print(json.load(sys.stdin)["replay_collection"])' \
	< $(DEMO_OUT)/tablanette.json)/0

demo: install
	@mkdir -p $(DEMO_OUT)
	$(BIN)/cardtable simulate tablanette --deals $(DEMO_DEALS) --policies greedy,random --seed 7 --log sample:100 \
		--output $(DEMO_OUT)/tablanette.json
	$(BIN)/cardtable simulate belote --deals $(DEMO_DEALS) --policies random --seed 7 --log sample:100 \
		--output $(DEMO_OUT)/belote.json
	$(BIN)/cardtable replay stream --delay 0.05 "$(DEMO_FIRST_REPLAY)"
	@echo
	@echo "The demo's first replay in the viewer: $$($(BIN)/python -m services.cli.web "$(DEMO_FIRST_REPLAY)")"
	@echo "served by: $(BIN)/cardtable web"

bench: install
	$(BIN)/cardtable bench --game $(BENCH_GAME) --policy random --seconds $(BENCH_SECONDS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(NODE_CLIENT)/node_modules/.bin/buf lint
