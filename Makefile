# livepush: the README's two commands are `make run` and `make test`.
SWIFT ?= swift
FUZZ_RUNS ?= 10000000
## Fuzz targets to run (names in Fuzz/, e.g. FuzzRTCP); empty: all.
FUZZ_TARGETS ?=
export PATH := $(PATH):/opt/swift/usr/bin

.PHONY: deps test-deps build run test bench bench-check fuzz fuzz-replay deb

deps:
	SWIFT=$(SWIFT) bash scripts/install-deps

test-deps:
	SWIFT=$(SWIFT) bash scripts/install-deps --test

## The release build, with the flags a user's binary ships with (scripts/release-build).
build: deps
	SWIFT=$(SWIFT) bash scripts/release-build --product livepush

## Runs `livepush serve` (the default command) on its embedded default: the first camera found, else
## the test pattern, with the dashboard at http://127.0.0.1:8080.
run: build
	.build/release/livepush

## Runs the whole test suite: the module floors (scripts/check-layers, docs/architecture.md), the
## simulated-camera checks against v4l2-ctl and ffmpeg, then the Swift tests in two shards side by
## side (scripts/run-tests).
test: test-deps
	python3 scripts/check-layers --self-test
	SWIFT=$(SWIFT) python3 scripts/check-layers
	bash Tests/SimCameraTests/run.sh
	SWIFT=$(SWIFT) bash scripts/run-tests

## Speed beside reference tools, for BENCHMARKS.md.
bench: deps
	SWIFT=$(SWIFT) bash scripts/release-build --product livepush
	SWIFT=$(SWIFT) bash scripts/release-build --product livepush-bench
	.build/release/livepush-bench

## livepush's peak RSS on the standard jobs (one encode to MP4 and to RTMP, three renditions; median
## of 3 runs each) against bench/rss-baseline.json: fails, naming the job and figure, when one grew by
## more than 5 %. A bench, not a test (it needs this machine's idle cores and takes about two minutes).
## A change that moves a figure on purpose rewrites the file with `--only rss-baseline` and says why.
bench-check: test-deps
	SWIFT=$(SWIFT) bash scripts/release-build --product livepush
	SWIFT=$(SWIFT) bash scripts/release-build --product livepush-bench
	.build/release/livepush-bench --only rss-check --baseline bench/rss-baseline.json

## Coverage-guided fuzzing (libFuzzer, AddressSanitizer) of every parser of network or file input:
## each target in Fuzz/ runs FUZZ_RUNS executions (Fuzz/README.md).
fuzz:
	FUZZ_RUNS=$(FUZZ_RUNS) SWIFT=$(SWIFT) bash scripts/fuzz $(FUZZ_TARGETS)

## Every fuzz corpus (Fuzz/Corpus) run once through its target: the regression check for CI.
fuzz-replay:
	SWIFT=$(SWIFT) bash scripts/fuzz --replay $(FUZZ_TARGETS)
## A .deb of this machine's architecture in out/ (scripts/make-deb): static Swift stdlib, the unit,
## a safe default config. Build it on the Debian release it is for (it depends on that FFmpeg).
deb: deps
	bash scripts/make-deb
