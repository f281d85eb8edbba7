# Two commands on a fresh machine: `make sim` and `make test`. Each makes its own venv.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: sim test bench physics hardware clean

# Reinstall when the package description changes.
$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

sim: $(BIN)/.installed
	$(BIN)/doce sim --open

# Four workers, one test file each at a time (pytest-xdist): most tests wait on simulated boards
# that run in real time, about half a core busy in one process, so four fit in two cores.
TEST_WORKERS ?= 4

test: $(BIN)/.installed
	$(BIN)/ruff check --quiet .
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# MATCHES: the opponent ladder's matches a pairing; `make bench MATCHES=10` for a quick look.
MATCHES ?= 200

bench: $(BIN)/.installed physics
	$(BIN)/python bench/run.py --matches $(MATCHES)

# 100,000 placements drawn within every tolerance, read as the firmware reads them.
physics: $(BIN)/.installed
	$(BIN)/python -m doce_host.physics.campaign --placements 100000

# the KiCad netlist and bom.csv, from the circuit in hardware/schematic.py
hardware: $(BIN)/.installed
	$(BIN)/python hardware/schematic.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
