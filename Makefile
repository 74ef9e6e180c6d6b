# The README's two commands: `make run` and `make test`. Everything they need is installed here.
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
LOG    ?= examples/nccl-timeout-4rank.log
export HF_HUB_OFFLINE := 1

.PHONY: install install-test run test bench lint clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# NOTE: the CPU build of torch first; any later torch requirement is then already met,
	# so pip never pulls the multi-GB CUDA wheels.
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) install --quiet -e '.[test]'
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null)
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(VENV)/bin/tracefix index build
	$(VENV)/bin/tracefix < $(LOG); test $$? -le 1

test: install-test
	$(PY) -m pytest -q

bench: install-test
	$(PY) bench/quality.py ../shared/eval/public
	$(PY) bench/startup.py
	$(PY) bench/log_memory.py

clean:
	rm -rf $(VENV) build dist tests/artifacts
