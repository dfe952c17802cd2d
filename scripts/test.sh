#!/usr/bin/env bash
# npm test: installs what is missing, type-checks, lints, checks the alert rules (promtool), builds,
# then runs every test tier with jest. Lint covers the code and the dependency direction (lint:deps).
# Jest's global setup starts a native Kafka broker when KAFKA_BROKERS is not set (see test/harness).
# Extra arguments go to jest, e.g. `npm test -- --testPathPatterns '\.unit\.'`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

t0=$(now)
ensure_node_modules
ensure_local_services
# The console's browser tests need chromium: installed here, before jest, when missing. Installed from a
# test instead, apt-get ran beside the other test files: the console test's 60 s set-up ran out, and another
# file's gateways timed out connecting to Postgres meanwhile (CI, 2026-11-25).
bash scripts/chromium.sh install
say "install (chromium included): $(elapsed "$t0") s"
t1=$(now)
tsc -p tsconfig.json
eslint --max-warnings 0 .
npm run --silent lint:deps
prettier --check . >/dev/null || { say "formatting differs: run npm run format"; exit 1; }
# The alert rules and scrape configs: promtool check + the rules' unit tests (a second or two).
bash infra/observability/promtool.sh check
build
say "typecheck + lint + alert rules + build: $(elapsed "$t1") s"
t2=$(now)
node --experimental-vm-modules --disable-warning=ExperimentalWarning --disable-warning=TimeoutNegativeWarning \
  node_modules/jest/bin/jest.js "$@"
say "jest (Kafka start included): $(elapsed "$t2") s; total $(elapsed "$t0") s"
