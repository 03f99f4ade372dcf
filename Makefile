# The two commands a user needs are `make demo` and `make test`; both set
# everything up themselves (a .venv made here, bubblewrap via apt-get).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
NBVAL  := --nbval course/source --nbval-sanitize-with course/nbval_sanitize.cfg -p no:cacheprovider

.PHONY: help instructor venv sandbox browser postgres hub lint test test-fast nbval demo execute release bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

BASE_STAMP := $(VENV)/.installed-base-stamp

# The instructor's install: the project and what grading needs, no test tools.
$(BASE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(BASE_STAMP)

$(STAMP): $(BASE_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

instructor: $(BASE_STAMP)  ## create .venv and install the project alone (nbg and the course's libraries, no test tools)

venv: $(STAMP)  ## create .venv and install the project with its dev extra (the test tools)

# Autograding runs student code in bubblewrap; install it where apt-get can
# (as root, or with sudo). Elsewhere grading says how to install it.
sandbox:  ## install bubblewrap (the grading sandbox) if it is missing
	@command -v bwrap >/dev/null 2>&1 || { \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "bubblewrap (bwrap) is missing and apt-get is not available: install it with your package manager"; exit 1; fi; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq bubblewrap >/dev/null; }

# The PostgreSQL gradebook tests start a throw-away server from Debian's binaries
# (/usr/lib/postgresql/*/bin); install them where apt-get can, as for bubblewrap.
postgres:  ## install PostgreSQL's server binaries (for the PostgreSQL gradebook tests) if missing
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "PostgreSQL (initdb) is missing and apt-get is not available: install the PostgreSQL server with your package manager"; exit 1; fi; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; }

# The browser test of the student hand-out drives JupyterLab in headless
# Chromium; Debian's chromium and chromium-driver, installed like bubblewrap.
browser:  ## install headless Chromium and its WebDriver (the hand-out's browser test) if missing
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "chromium and chromedriver are missing and apt-get is not available: install them with your package manager"; exit 1; fi; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

# The hub test runs a real JupyterHub (from PyPI, in the dev extra) whose proxy,
# configurable-http-proxy, comes from npm: installed here into .hub/, once.
HUB_PROXY := .hub/node_modules/.bin/configurable-http-proxy
hub: $(HUB_PROXY)  ## install JupyterHub's proxy (configurable-http-proxy from npm) into .hub/ for the hub test
$(HUB_PROXY):
	@command -v npm >/dev/null 2>&1 || { \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "npm is missing and apt-get is not available: install Node.js and npm with your package manager"; exit 1; fi; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nodejs npm >/dev/null; }
	npm install --silent --no-audit --no-fund --prefix .hub configurable-http-proxy@5.3.0

lint: $(STAMP)  ## ruff (check only; the import direction is tests/test_layers.py)
	$(BIN)/ruff check .

test: $(STAMP) sandbox browser postgres hub lint  ## run every test: lint, nbcore and grading (with doctests), notebooks (nbval)
	$(BIN)/pytest -n 2 --durations=25
	$(BIN)/pytest $(NBVAL)

test-fast: $(STAMP)  ## the tests not marked slow
	$(BIN)/pytest -m "not slow"

nbval: $(STAMP)  ## re-execute the source notebooks and compare with their stored outputs
	$(BIN)/pytest $(NBVAL)

demo: $(BASE_STAMP) sandbox  ## build the release, grade the bundled demo class, write feedback and a report
	$(BIN)/nbg demo --out demo-output

execute: $(BASE_STAMP)  ## re-execute every source notebook in place (commit the result)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.record_timing=False course/source/*/*.ipynb

release: $(BASE_STAMP)  ## build the student release, the student hand-out (kit wheel, environment files) and their zips
	$(BIN)/nbg --course course release

bench: $(STAMP)  ## run the benchmarks and write BENCHMARKS.md
	$(BIN)/python -m bench

clean:  ## remove the virtualenv and generated outputs
	rm -rf $(VENV) demo-output .pytest_cache
