# The two commands a new user types: `make run` and `make test`. Both build .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
PORT ?= 8501
# Test workers (make test PYTEST_WORKERS=2 on a machine with less memory than 2 cores' worth).
PYTEST_WORKERS ?= 3

.PHONY: run test test-fast lint venv system-deps chromium postgres samples screenshots bench first-paint validate compat-fixtures clean

# The dashboard and CLI alone (make run): runtime dependencies only, with pip's progress.
$(RUN_STAMP): pyproject.toml
	@echo "Making $(VENV) and installing replaylens with its runtime dependencies..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --progress-bar on -e .
	touch $(RUN_STAMP)

# Everything the tests need on top (make test): Playwright, ruff, hypothesis, the Postgres saver.
$(STAMP): $(RUN_STAMP)
	@echo "Installing the test extras..."
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

# Debian's Chromium for the browser tests (Playwright cannot download browsers here).
# Statuses are drawn as coloured badges and pills (no emoji font needed); the emoji font only keeps
# screenshots of pasted data faithful.
chromium:
	@{ command -v chromium >/dev/null 2>&1 && [ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; } || { \
	  echo "Installing Debian's chromium and fonts for the browser tests..."; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium fonts-dejavu-core fonts-noto-color-emoji >/dev/null; }

# Debian's PostgreSQL server for the Postgres source's tests (a throw-away cluster per run).
postgres:
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { \
	  echo "Installing Debian's postgresql for the Postgres tests..."; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; }

system-deps: chromium postgres

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Every test on three workers (PYTEST_WORKERS), a file's tests on one worker with its fixtures (a browser test
# module drives its own server and Chromium). The corpus of real kills and the demo folder
# are built once and shared by the workers. Two workers kept the 2 cores busy 63% of the
# time (killed children sleep in their nodes, pages wait on the server): on one 2-core
# machine and tree, 653 s of tests on two workers, 486 s on three.
test: $(STAMP) system-deps lint
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=20

# The quick loop while changing code: no browser, no kill, no server, no page (under a minute).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n auto -m "not browser and not slow and not ui"

# PNGs of every page for the README, taken from the running app by headless Chromium.
screenshots: $(STAMP) system-deps
	$(BIN)/python scripts/screenshots.py

run: $(RUN_STAMP)
	$(BIN)/replaylens serve sample_dbs --port $(PORT)

# Regenerate the bundled kill-test campaigns in sample_dbs/ (about 4 minutes on 2 cores).
samples: $(STAMP)
	$(BIN)/python scripts/make_samples.py

# The durability what-if against real kills: every example graph, mode and latency (252 kills, about an hour on 2 cores).
validate: $(STAMP)
	$(BIN)/replaylens validate --runs 2

# Benchmarks against LangGraph's own API on large fixtures (built once, cached in bench/.cache).
bench: $(STAMP) first-paint
	$(BIN)/python bench/run.py

# The cold first draw of every page in 5 fresh headless Chromiums each on a warm server (median, worst, load).
first-paint: $(STAMP) system-deps
	$(BIN)/python bench/first_paint.py

# Rebuild tests/compat/<version>/: one throw-away venv per LangGraph generation (in
# .cache/compat, not committed) runs the example graphs, kills some, records get_state.
compat-fixtures: $(STAMP)
	$(BIN)/python scripts/make_compat_fixtures.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

# The what-if on graphs modelled on LangGraph's own tests (29 shapes, an early and a late kill,
# sync/async/exit, one run at 0 s and two at 0.25 s: 522 kills, about an hour on an idle 2-core
# machine, hours on a loaded one). The campaigns stay in .cache/corpus: re-judge them with
# `replaylens validate --corpus langgraph-tests --judge-only --out .cache/corpus`.
.PHONY: validate-corpus
validate-corpus: $(STAMP)
	nice -n 10 $(BIN)/replaylens validate --corpus langgraph-tests --out .cache/corpus
