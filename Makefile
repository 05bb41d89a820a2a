# Two commands: `make run` and `make test`. Each builds .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
NATIVE_SOURCES := setup.py $(wildcard spiel_bounded/native/src/*.cc spiel_bounded/native/src/*.h)
# Where a C++ compiler exists the native engine must build (a failed build is an error, not a
# silent fallback to the Python engines); elsewhere the package installs without it.
export SPIEL_BOUNDED_REQUIRE_NATIVE := $(shell command -v c++ >/dev/null 2>&1 && echo 1)
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: run test test-fast durations docs lint typecheck pytest bench native sanitize clean

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (or: make PYTHON=python3)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml $(NATIVE_SOURCES) | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml $(NATIVE_SOURCES) | $(PY)
	$(PY) -m pip install --quiet -e ".[dev,cluster,jax,fast,alphazero,gnubg]"
	touch $@ $(STAMP_RUN)

run: $(STAMP_RUN)
	$(PY) scripts/round_robin.py --config configs/quick.toml

test: $(STAMP_DEV)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/clang-format --dry-run --Werror spiel_bounded/native/src/*
	$(PY) -m mypy spiel_bounded
	mkdir -p build
	$(PY) -m pytest -n auto -q --record-durations=build/test-durations.json

# Daily work: the tests tests/durations.json times under 0.5 s each (tests/tiers.py); `make
# test` (and CI) runs every test.
test-fast: $(STAMP_DEV)
	$(PY) -m pytest -n auto -q -m "not slow"

# Rewrites tests/durations.json from a full `make test` (commit it when tests were added or
# changed, so that the fast tier stays fast).
durations: test
	cp build/test-durations.json tests/durations.json

# The manual (docs/, mkdocs.yml) into build/site; the tests build it with --strict too.
docs: $(STAMP_DEV)
	$(PY) -m mkdocs build --strict

bench: $(STAMP_RUN)
	$(PY) scripts/bench.py

# Rebuilds the native engine in place after a change to its C++ (pip install -e builds it too).
native: $(STAMP_DEV)
	$(PY) setup.py -q build_ext --inplace

# The native engine's tests under AddressSanitizer and UndefinedBehaviorSanitizer (run before each
# change to the C++). The instrumented build goes into a copy of the package under
# build/sanitize-tree, so the normal build is never replaced (an interrupted run leaves it intact)
# and need not be current: the install is an order-only prerequisite (a change to the C++ does
# not reinstall first; the next `make test` does).
SANITIZE_TREE := build/sanitize-tree
sanitize: | $(STAMP_DEV)
	rm -rf $(SANITIZE_TREE) && mkdir -p $(SANITIZE_TREE)
	cp -r spiel_bounded tests $(SANITIZE_TREE)/
	rm -f $(SANITIZE_TREE)/spiel_bounded/native/*.so
	ln -s $(CURDIR)/results $(CURDIR)/configs $(CURDIR)/scripts $(CURDIR)/pyproject.toml $(SANITIZE_TREE)/
	SPIEL_BOUNDED_NATIVE_FLAGS="$(SANITIZE_FLAGS)" $(PY) setup.py -q build_ext \
		--build-temp build/sanitize --build-lib $(SANITIZE_TREE)
	cd $(SANITIZE_TREE) && PYTHONPATH=. \
		LD_PRELOAD="$$(c++ -print-file-name=libasan.so) $$(c++ -print-file-name=libubsan.so)" \
		ASAN_OPTIONS=detect_leaks=0 $(CURDIR)/$(PY) -m pytest -q -p no:xdist -p no:cacheprovider \
		tests/test_native_alphabeta.py tests/test_native_heuristics.py tests/test_native_mcts.py \
		tests/test_native_maxn.py tests/test_native_evaluators.py tests/test_native_pns_rivest.py \
		tests/test_table_labels.py tests/test_native_selfplay.py tests/test_native_twins.py \
		tests/test_connection_planes.py tests/test_threat_planes.py tests/test_territory_planes.py \
		tests/test_heuristics_amazons.py tests/test_connect_four_solver.py \
		tests/test_clobber_solver.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build spiel_bounded/native/*.so
