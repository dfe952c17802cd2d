#!/usr/bin/env bash
# npm run bench:<name>: builds, makes sure Postgres, Redis and Kafka are there (a native broker is
# started, and stopped afterwards, when KAFKA_BROKERS is not set), migrates a bench database, then runs
# bench/<name>.bench.ts, which prints its figures and verdicts. Further arguments go to the bench:
# `npm run bench:<name> -- --check` exits non-zero when a verdict is missed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
name="${1:?usage: scripts/bench.sh <name>}"

ensure_node_modules
ensure_local_services
build

started_kafka=""
if [[ -z "${KAFKA_BROKERS:-}" ]]; then
  if ! bash infra/kafka/kafka.sh status >/dev/null 2>&1; then started_kafka=1; fi
  bash infra/kafka/kafka.sh start >&2
  export KAFKA_BROKERS=127.0.0.1:9092
fi
trap '[[ -n "$started_kafka" ]] && bash infra/kafka/kafka.sh stop >&2' EXIT
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/tp_bench}"
MIGRATE_QUIET=1 node infra/db/dist/migrate.cli.js up >&2
# kafkajs sets timers with negative delays (the services pass the same flag; see scripts/start.sh).
NODE_OPTIONS="${NODE_OPTIONS:-} --disable-warning=TimeoutNegativeWarning" tsx --conditions=@tp/source "bench/$name.bench.ts" "${@:2}"
