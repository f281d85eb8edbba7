# Two commands on a fresh machine: `make sim` and `make test`. Each makes its own venv.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: sim test bench campaign physics bands magnets fields hardware images clean

# What playing needs: the package and its dependencies, no developer's tools and no design tools
# (about 125 MB: bench/install.py measures it). `make sim` stops here. Reinstalled when the
# package description changes.
$(BIN)/.player: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# And what the tests, benches, images and circuit need besides: the dev extra (the design tools'
# magpylib, pytest, ruff, Playwright, skidl, Blinka...).
$(BIN)/.installed: $(BIN)/.player
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

sim: $(BIN)/.player
	@echo "The doce command is $(BIN)/doce: '. $(BIN)/activate' puts it on this terminal's PATH (docs/commands.md)."
	$(BIN)/doce sim --open

# Eight workers, one test file each at a time (pytest-xdist): most tests wait on simulated boards that
# run in real time (a USB line paced at 115200 baud, a board's scans), a worker busy a fraction of the
# time, so eight still leave two cores' work to do; the suite must pass so on two cores (deadlines are
# sized from the work: tests/waiting.py). On two cores, alone, pytest took 11 min 15 s with eight
# (b6ed765; on an older tree four took 12 min 47 s to 15 min 09 s, eight 12 min 31 s). The files go out
# heaviest first (tests/file_cpu.txt, measured; tests/conftest.py orders each worker's collection), not by
# their number of tests as xdist sorts them: a heavy file of few tests started last left a core idle.
TEST_WORKERS ?= 8

test: $(BIN)/.installed
	$(BIN)/ruff check --quiet .
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# Issue 41's whole power-cut campaign for remote play: a cut at every flash write of every step of a
# four-round remote match on either board, some 1,700 cuts over 42 matches (bench/remote_campaign.py).
# `make test` (and so CI) plays one representative match of it; `make campaign` plays it all, two
# matches at a time (some 10 minutes: run it before landing a change to remote play or the journal).
campaign: $(BIN)/.installed
	$(BIN)/python bench/remote_campaign.py --workers 2

# MATCHES: the opponent ladder's matches a pairing; `make bench MATCHES=10` for a quick look.
# Its ESP32 figures are estimates: it writes them to build/bench/estimates.json, which `doce bench
# --port P` prints beside the chip's own, measured on a board; bench/measured/ keeps those.
MATCHES ?= 200

bench: $(BIN)/.installed physics
	$(BIN)/python bench/run.py --matches $(MATCHES)

# 100,000 placements and 10,000 paths (landings, drops) drawn within every tolerance, read as
# the firmware reads them, and each family's worst pose searched for (hardware/README.md): the searches
# with every tolerance run twice, from starts of their own, to say how repeatable their worst is.
physics: $(BIN)/.installed
	$(BIN)/python -m doce_host.physics.campaign --placements 100000 --paths 10000 --search 48 --corners 2

# The dice check's bands (board.json sensing.check_above): for each magnet of each piece's face down,
# the least a die built right reads at the sensor under it, searched with every tolerance free, once
# with each seed; each band is the lower less 1.0 mT, and the run says how far the seeds lie apart
# (some 10 minutes of one core). After changing the dice, magnets or sensing, make it again.
bands: $(BIN)/.installed
	$(BIN)/python -m doce_host.physics.bands --seeds 1 2 --write

# The magnet check's figures (board.json sensing.magnet_check; hardware/README.md, the dice check), two seeds
magnets: $(BIN)/.installed
	nice -n 10 $(BIN)/python -m doce_host.physics.magnet_check 1
	nice -n 10 $(BIN)/python -m doce_host.physics.magnet_check 2

# The simulator's field table (host/doce_host/physics/cylinder_field.bin), made from magpylib for
# board.json's magnets: after changing their size, make it again (tests/physics/test_field_table.py says so).
fields: $(BIN)/.installed
	$(BIN)/python -m doce_host.physics.field_table

# Everything a maker downloads, from hardware/board.json and hardware/schematic.py: the KiCad
# netlist and bom.csv, the dice sheet, the mechanics (DXF, STEP, STL) and the jig, the routed
# PCB (about 5 minutes of routing) and its fab files (Gerbers, drills, JLCPCB's BOM and CPL);
# hardware/generated.json records what each was built from (tests/hardware checks it).
hardware: $(BIN)/.installed $(BIN)/.hardware
	$(BIN)/python hardware/schematic.py
	$(BIN)/python -m doce_host.physics.drawing > hardware/die-code.svg
	$(BIN)/python -m doce_host.physics.drawing --faces > hardware/dice/faces.svg
	PYTHONHASHSEED=0 nice -n 10 $(BIN)/python hardware/mechanics.py  # ezdxf orders some objects by hash
	$(BIN)/python hardware/outputs.py mechanics
	$(BIN)/python hardware/floor.py
	$(BIN)/python hardware/cup.py
	nice -n 10 $(KICAD_PYTHON) hardware/pcb.py
	$(KICAD_PYTHON) hardware/pcb.py --drc || true
	$(BIN)/python hardware/outputs.py pcb
	$(BIN)/python hardware/supply.py  # each sensor's supply drop in its tracks, worst first
	$(KICAD_PYTHON) hardware/fab.py
	$(BIN)/python hardware/outputs.py fab
	nice -n 10 $(BIN)/python hardware/renders.py

# KiCad's own Python: Debian's kicad package puts pcbnew in the system python3
KICAD_PYTHON ?= /usr/bin/python3

$(BIN)/.hardware: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet -e '.[hardware]'
	touch $@

# The docs' screenshots (docs/images/), taken by the tests that drive the pages in Chromium.
SHOTS := build/shots/web
images: $(BIN)/.installed
	rm -rf build/shots
	DOCE_ARTIFACTS=build/shots $(BIN)/python -m pytest -q -p no:cacheprovider \
	    tests/web/test_versus_page.py::test_a_match_against_the_board_on_the_page \
	    tests/web/test_page.py::test_a_recorded_game_replays_move_by_move \
	    tests/web/test_page.py::test_a_die_in_the_no_play_zone_shows_the_error_until_it_is_lifted \
	    tests/web/test_phone.py::test_the_page_fits_a_phone \
	    tests/fleet/test_tournament_screen.py::test_eight_boards_on_a_1920_screen_each_400_px_wide_no_text_under_16_px
	cp $(SHOTS)/versus-board-move.png docs/images/page.png
	cp $(SHOTS)/replay-winning-line.png docs/images/winning-line.png
	cp $(SHOTS)/no-play-zone-error.png docs/images/no-play-zone.png
	cp $(SHOTS)/phone-board-move.png docs/images/phone.png
	cp $(SHOTS)/hall-8-boards.png docs/images/tournament.png

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
