# Tarotmate: `make demo` runs the demo on the simulated table, `make test` runs the tests.
# Both create the virtual environment .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: demo test test-pi models bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/tarotmate demo --out demo-out

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

# The same tests with what a Pi runs: Raspberry Pi OS Bookworm's numpy and the OpenCV wheel pip picks beside it
# (.ci/pi-constraints.txt: what systemd/install.sh's pins resolve to there), in their own venv.
.venv-pi/.installed: pyproject.toml .ci/pi-constraints.txt
	$(PYTHON) -m venv .venv-pi
	.venv-pi/bin/pip install --upgrade --quiet pip
	.venv-pi/bin/pip install --quiet -c .ci/pi-constraints.txt -e '.[test]'
	touch $@

test-pi: .venv-pi/.installed
	.venv-pi/bin/python -c 'import numpy, cv2; print(f"numpy {numpy.__version__}, OpenCV {cv2.__version__}")'
	.venv-pi/bin/python -m pytest -q -p no:cacheprovider

# Rebuild models/ from ../shared/decks (torch in its own venv, never a runtime dependency).
models:
	$(PYTHON) -m venv .venv-train
	.venv-train/bin/pip install --quiet -e '.[train]'
	.venv-train/bin/python -m vision.training.build_models --out models --work models/training/from-scratch --fresh
	.venv-train/bin/python -m vision.training.build_locator --out models --file locator_looks.onnx --work models/training/from-scratch --fresh
	.venv-train/bin/python -m vision.training.build_locator --out models --net-width 2 --work models/training/from-scratch/wide --fresh

bench: $(VENV)/.installed
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .venv-pi demo-out .pytest_cache
