# Tarotmate: `make demo` runs the demo on the simulated table, `make test` runs the tests.
# Both create the virtual environment .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: demo test models bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/tarotmate demo --out demo-out

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) demo-out .pytest_cache
