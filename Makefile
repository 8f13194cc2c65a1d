# Nestory: `make run` and `make test` do all the set-up on a fresh Debian machine.
SWIFT ?= swift
export PATH := $(PATH):/opt/swift/usr/bin
# The server's data folder (make run); DATA is for benchmark datasets (make bench-receipts DATA=DIR).
NESTORY_DATA ?= ./nestory-data
DATA ?=
HOST ?= 127.0.0.1
PORT ?= 8080
ITEMS ?= 100000
# Items in the reports benchmark's household.
REPORT_ITEMS ?= 5000

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: install run build test deps test-deps bench bench-store bench-postgres bench-web bench-health bench-images bench-barcodes bench-barcodes-stress bench-receipts bench-backup bench-reports bench-capture bench-valuation release clean format

## Install what is missing, build the optimised binary, and start the server on the embedded SQLite default.
run: deps
	$(SWIFT) build -c release --product nestory
	$(SWIFT) build -c release --product nestory-zxing
	./.build/release/nestory serve --data $(NESTORY_DATA) --host $(HOST) --port $(PORT)

## Put the release binary, its barcode worker and RapidOCR (a Python venv) under $(DESTDIR)$(PREFIX);
## deploy/nestory.service runs it with systemd (README, "Running it for real").
install: deps
	$(SWIFT) build -c release --product nestory
	$(SWIFT) build -c release --product nestory-zxing
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/nestory
	install -m 0755 .build/release/nestory .build/release/nestory-zxing $(DESTDIR)$(PREFIX)/bin/
	./scripts/install-ocr.sh $(DESTDIR)$(PREFIX)/lib/nestory/venv-ocr

build: deps
	$(SWIFT) build

## Install what is missing, build everything once, and run every test (Swift, then the browser).
test: test-deps
	$(SWIFT) build --build-tests
	./scripts/with-postgres.sh $(SWIFT) test --skip-build
	./scripts/with-postgres.sh ./scripts/browser-tests.sh
	./scripts/api-contract.sh
	./scripts/check-deploy.sh

deps:
	@./scripts/install-deps.sh
	@./scripts/install-ocr.sh

test-deps:
	@./scripts/install-deps.sh --test
	@./scripts/install-ocr.sh

release: deps
	$(SWIFT) build -c release --product nestory
	$(SWIFT) build -c release --product nestory-zxing
	$(SWIFT) build -c release --product nestory-bench

## Benchmarks (release builds). Each prints a table; results go in BENCHMARKS.md.
bench: bench-store bench-web

## Store queries on an $(ITEMS)-item demo household, beside the same SQL run raw.
bench-store: test-deps release
	./scripts/bench-store.sh $(ITEMS)

## The same store queries on PostgreSQL (a throwaway cluster, $(ITEMS) items loaded through the store), beside raw SQL.
bench-postgres: test-deps release
	./scripts/with-postgres.sh bash -c '.build/release/nestory-bench postgres --url "$$NESTORY_TEST_POSTGRES_URL" --items $(ITEMS)'

## Requests per second of the JSON list and summary on PostgreSQL, one server and two behind nginx, CPU per request (docs/scaling.md).
bench-scaling: test-deps release
	./scripts/with-postgres.sh ./scripts/bench-scaling.sh

## Page and API latency, requests per second with wrk, idle memory (after bench-store's data).
bench-web: test-deps release
	./scripts/bench-web.sh $(ITEMS)

## /health p50/p99 idle and while a full report renders and a backup is restored (after bench-store's data).
bench-health: test-deps release
	./scripts/bench-health.sh $(ITEMS)

## Upload-to-thumbnail time beside vipsthumbnail.
bench-images: test-deps
	./scripts/bench-images.sh

## Decode rate, wrong reads and ms per image beside zbarimg; DATA=DIR for another folder.
bench-barcodes: test-deps
	./scripts/bench-barcodes.sh $(DATA)

## The same beside zbarimg on N generated pictures (every format under every degradation), per format and degradation.
N ?= 3900
SEED ?= 1
bench-barcodes-stress: test-deps
	./scripts/bench-barcodes-stress.sh $(N) $(SEED)

## Receipt field accuracy from the image and from perfect text; DATA=DIR for another folder.
bench-receipts: test-deps
	./scripts/bench-receipts.sh $(DATA)

## Backup and restore of 5,000 items and 10,000 photos beside zip -0 and unzip (KB=256 photo size).
bench-backup: test-deps
	./scripts/bench-backup.sh
## Full inventory PDF of 5,000 items with a photo each: time, peak memory, pages/s beside WeasyPrint.
bench-reports: test-deps
	ITEMS=$(REPORT_ITEMS) ./scripts/bench-reports.sh

## The scan spec's SC-001: Capture open → interactive, p95 over 40 opens, beside the inventory page's load.
bench-capture: test-deps release
	./scripts/browser-venv.sh
	./scripts/bench-capture.sh

## A valuation batch of ITEMS (200) items against local providers with 1-3 s per call, beside the ideal its rate limit sets.
bench-valuation: test-deps release
	./scripts/bench-valuation.sh

## Format the code with the toolchain's swift-format and the checked-in .swift-format.
format:
	$(SWIFT) format --in-place --recursive Sources Tests

clean:
	rm -rf .build
