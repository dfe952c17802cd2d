#!/usr/bin/env bash
# npm test: installs what is missing, type-checks, lints (code and dependency direction), builds, then runs every test tier with jest.
# Jest's global setup starts a native Kafka broker when KAFKA_BROKERS is not set (see test/harness).
# Extra arguments go to jest, e.g. `npm test -- --testPathPatterns '\.unit\.'`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

t0=$(now)
ensure_node_modules
say "install: $(elapsed "$t0") s"
ensure_local_services
t1=$(now)
tsc -p tsconfig.json
eslint --max-warnings 0 .
npm run --silent lint:deps
prettier --check . >/dev/null || { say "formatting differs: run npm run format"; exit 1; }
build
say "typecheck + lint + build: $(elapsed "$t1") s"
t2=$(now)
node --experimental-vm-modules --disable-warning=ExperimentalWarning --disable-warning=TimeoutNegativeWarning \
  node_modules/jest/bin/jest.js "$@"
say "jest (Kafka start included): $(elapsed "$t2") s; total $(elapsed "$t0") s"
