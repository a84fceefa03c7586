# Sluice build and CI entry points. Works on a fresh Debian 12 with Swift installed.
# `make lint` then `make test` is what CI runs (through .ci/run): style and warnings, then Debian + Python deps,
# Swift build, unit tests, e2e.

SWIFT ?= swift
PYTHON ?= python3
ARGS ?=
# swift-test has been seen hanging after a test process crashed: cap it so CI still reports.
SWIFT_TEST_TIMEOUT ?= 1200
# Lint compiles with different flags; a scratch folder of its own keeps the shared .build warm.
LINT_SCRATCH ?= .build-lint
SLUICE := .build/debug/sluice
E2E_REQUIREMENTS := Tests/e2e/requirements.txt

# Only root runs apt-get directly; anyone else goes through sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# libav* + librtmp for the Swift targets, OpenSSL/libsrtp2 for WebRTC, varnish as the CDN edge (Config/varnish-edge.vcl), ffmpeg/ffprobe and
# chromium + chromedriver for the e2e suite, nginx as the second-choice edge (Config/nginx-edge.conf) and, with
# libnginx-mod-rtmp, as the outside anchor of `sluice bench` (nginx-rtmp-hls); libsrt (GnuTLS build, the one
# libavformat links) for SRT ingest and srt-live-transmit (srt-tools) as an e2e publisher; wrk for the
# independent fan-out cross-check (Tests/e2e/wrk_llhls.lua); OBS Studio itself under Xvfb as an input of the interop
# matrix (Tests/e2e/test_interop_matrix.py, obspeer.py); redis-server for the Redis client's and the cluster registry's
# tests (a throwaway server per suite; SLUICE_SKIP_REDIS_TESTS=1 skips them where it cannot be installed).
APT_PACKAGES := pkg-config libavformat-dev libavcodec-dev libavutil-dev libswscale-dev \
	libswresample-dev librtmp-dev libssl-dev libsrtp2-dev ffmpeg chromium chromium-driver nginx \
	libnginx-mod-rtmp libsrt-gnutls-dev srt-tools varnish wrk obs-studio xvfb redis-server
# Import names of Tests/e2e/requirements.txt: pip runs only if one is missing.
PY_MODULES := pytest requests selenium m3u8 aiortc numpy imageio_ffmpeg

.PHONY: all deps deps-apt deps-python hlsjs build run test test-swift test-e2e bench sample lint clean fuzz soak

all: build

deps: deps-apt deps-python

deps-apt:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	command -v $(PYTHON) >/dev/null 2>&1 || missing="$$missing python3"; \
	$(PYTHON) -m pip --version >/dev/null 2>&1 || missing="$$missing python3-pip"; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing Debian packages:$$missing"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else \
		echo "deps: Debian packages present"; \
	fi

deps-python: deps-apt
	@missing=""; \
	for m in $(PY_MODULES); do \
		$(PYTHON) -c "import $$m" >/dev/null 2>&1 || missing="$$missing $$m"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing Python packages for:$$missing"; \
		PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install -q -r $(E2E_REQUIREMENTS); \
	else \
		echo "deps: Python packages present"; \
	fi

# hls.js from the PyPI wheel gradio==6.31.0 into .build/hlsjs/hls-chunk.js (Tests/e2e/hlsjs.py), for the e2e
# tests and `sluice bench --player hlsjs`. Without PyPI the tests that need it skip, so this never fails the build.
hlsjs: deps-python
	@$(PYTHON) Tests/e2e/hlsjs.py || echo "hlsjs: not extracted; hls.js tests skip and sluice bench --player hlsjs fails"

build:
	$(SWIFT) build

# hls.js first: the gateway serves the pages' copy from .build/hlsjs/ (pages.hlsjs_url: /pages/hls.mjs).
run: deps hlsjs build
	$(SLUICE) serve --demo $(ARGS)

# Both suites always run; the target fails if either failed.
test: deps hlsjs
	$(SWIFT) build --build-tests
	@rc=0; \
	$(MAKE) --no-print-directory test-swift || rc=1; \
	$(MAKE) --no-print-directory test-e2e || rc=1; \
	exit $$rc

# Serial: suites that wait on ffmpeg/ffprobe children would otherwise starve the cooperative pool and
# skew the timing assertions of the blocking-reload tests (40-70 s on 2 cores either way).
# CI keeps only the tail of the output, so the failures are printed again at the end.
test-swift:
	@{ timeout --kill-after=30 $(SWIFT_TEST_TIMEOUT) $(SWIFT) test --skip-build --no-parallel; echo $$? > .build/test-swift.rc; } 2>&1 \
	  | tee .build/test-swift.log; rc=$$(cat .build/test-swift.rc); if [ "$$rc" != 0 ]; then \
	  echo "--- unit tests failed (exit $$rc); the failures, from .build/test-swift.log:"; \
	  grep -E '✘|recorded an issue|error:|Fatal error|Crash' .build/test-swift.log | head -40; fi; exit $$rc

test-e2e:
	$(PYTHON) -m pytest -q Tests/e2e

# Release build (timings of a debug build say little). First the latency scenarios, every available one for
# BENCH_SECONDS each (.build/bench.json + .build/bench.svg, not committed: docs/BENCHMARKS.md keeps the figures
# with their commands), then the ladder against the ffmpeg CLI.
# BENCH_PLAYERS=model,hlsjs,native adds the real players (headless Chromium) to every scenario.
BENCH_SECONDS ?= 30
BENCH_PLAYERS ?= model
bench: deps hlsjs
	$(SWIFT) build -c release --product sluice
	.build/release/sluice bench --duration $(BENCH_SECONDS) --player $(BENCH_PLAYERS) --json .build/bench.json --svg .build/bench.svg
	.build/release/sluice bench --transcode-only

sample:
	bash Samples/make-sample.sh

# libFuzzer + AddressSanitizer, one target per parser (Fuzz/, its own package and scratch folder so the
# shared .build never sees the sanitizer flags). New inputs go to $(FUZZ_SCRATCH)/corpus; the committed
# seeds in Fuzz/Corpus stay read-only. A crash leaves $(FUZZ_SCRATCH)/artifacts/<target>-crash-* and fails.
FUZZ_SECONDS ?= 60
FUZZ_SCRATCH ?= .build-fuzz
FUZZ_FLAGS ?=
# release (-O; preconditions, bounds checks and ASan kept) runs the String-heavy FuzzSDP ~2.5x faster than debug.
FUZZ_CONFIG ?= debug
FUZZ_TARGETS ?= FuzzRTMPHandshake FuzzChunkStream FuzzAMF0 FuzzFLVTag FuzzRTMPMessage FuzzPlaylistQuery \
	FuzzH264 FuzzAAC FuzzMP4Box FuzzSEI FuzzSDP FuzzSTUN FuzzRTP FuzzRTCP FuzzH264RTP FuzzWHEP FuzzMPEGTS FuzzSRTStreamID \
	FuzzExVideoTag FuzzHEVC FuzzAV1 FuzzRESP
fuzz:
	$(SWIFT) build --package-path Fuzz --scratch-path $(FUZZ_SCRATCH) -c $(FUZZ_CONFIG) \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld
	@mkdir -p $(FUZZ_SCRATCH)/artifacts; rc=0; \
	for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_SCRATCH)/corpus/$$t; \
		SWIFT_BACKTRACE=enable=no $(FUZZ_SCRATCH)/$(FUZZ_CONFIG)/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_SCRATCH)/artifacts/$$t- $(FUZZ_FLAGS) \
			$(FUZZ_SCRATCH)/corpus/$$t Fuzz/Corpus/$$t > $(FUZZ_SCRATCH)/$$t.log 2>&1 || { rc=1; echo "fuzz: $$t FAILED"; \
			grep -E "ERROR|Precondition|Fatal|Test unit written" $(FUZZ_SCRATCH)/$$t.log; }; \
		printf "fuzz: %-18s %s\n" $$t "$$(grep -hoE "stat::(number_of_executed_units|average_exec_per_sec): *[0-9]+" \
			$(FUZZ_SCRATCH)/$$t.log | sed -E 's/stat::(number_of_executed_units|average_exec_per_sec)/\1/' | tr '\n' ' ')"; \
	done; exit $$rc

# One publisher and SOAK_VIEWERS blocking viewers for SOAK_SECONDS; fails unless RSS and open fds stay flat
# (tolerances in Tests/e2e/soak.py). Not part of `make test`: the 2-minute version (test_soak.py) is.
SOAK_SECONDS ?= 3600
SOAK_VIEWERS ?= 200
soak: build
	$(PYTHON) Tests/e2e/soak.py --seconds $(SOAK_SECONDS) --viewers $(SOAK_VIEWERS)

# The layers (no target imports one from a higher layer: .ci/check_layers.py reads .ci/layers.txt), style
# (.swift-format, as swift-nio: 120 columns, ordered imports) and a build with every warning an error.
lint: deps-apt
	$(PYTHON) .ci/check_layers.py
	$(SWIFT) format lint --strict --recursive Sources Tests
	$(SWIFT) build --scratch-path $(LINT_SCRATCH) -Xswiftc -warnings-as-errors

clean:
	$(SWIFT) package clean
	rm -rf .build/e2e-artifacts $(LINT_SCRATCH)
