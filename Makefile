# Two entry points (see README): `make demo` and `make test`. Both create and fill
# the project's own virtual environment first.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test test-emulator test-lit test-pytest test-docs docs clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "ttlang: $(PYTHON) not found; install it (Debian: apt-get install python3.11 python3.11-venv)"; exit 1; }
	@command -v g++ >/dev/null 2>&1 || { echo "ttlang: g++ not found; install it (Debian: apt-get install g++)"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { echo "ttlang: could not create a venv; install python3.11-venv"; exit 1; }
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test,docs]'
	@touch $@

demo: $(STAMP)
	$(BIN)/python examples/flash_attention.py

test: test-emulator test-lit test-pytest test-docs

test-emulator: $(STAMP)
	@if [ -f CMakeLists.txt ]; then \
	  $(BIN)/cmake -S . -B build/emulator -DCMAKE_BUILD_TYPE=Release >/dev/null && \
	  $(BIN)/cmake --build build/emulator -j2 && \
	  $(BIN)/ctest --test-dir build/emulator --output-on-failure; \
	fi

test-lit: $(STAMP)
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/lit -sv test

test-pytest: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider test/python

# The documentation site (mkdocs.yml): docs/ plus the API reference, into build/site.
docs: $(STAMP)
	$(BIN)/mkdocs build

# The same build where a broken link or an unresolved reference is an error.
test-docs: $(STAMP)
	$(BIN)/mkdocs build --strict --quiet

clean:
	rm -rf build $(VENV)
