# Two commands: `make run` and `make test`. Each builds .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: run test lint typecheck pytest bench clean

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (or: make PYTHON=python3)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev,cluster,jax,fast,alphazero]"
	touch $@ $(STAMP_RUN)

run: $(STAMP_RUN)
	$(PY) scripts/round_robin.py --config configs/quick.toml

test: $(STAMP_DEV)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy spiel_bounded
	$(PY) -m pytest -n auto -q

bench: $(STAMP_RUN)
	$(PY) scripts/bench.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
