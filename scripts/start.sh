#!/usr/bin/env bash
# npm start: the whole stack on this machine. Installs node modules, builds, starts Kafka natively when
# KAFKA_BROKERS is not set, installs and starts Apertium APy (with the default pairs) when APERTIUM_URL is
# not set, creates the database and applies migrations, creates the topics, then runs gateway (3000),
# translator (3004), nli (3005) and worker (3006), and prints one `[start] ready` line once every
# service's /ready passes (with what is degraded and why). Ctrl-C stops all of it, Kafka and APy included.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_node_modules
ensure_local_services
build

# Set before anything starts, so a failing step still stops what was started.
started_kafka=""
started_apertium=""
pids=()
ready_pid=""
stopping=""
stop_all() {
  [[ -n "$stopping" ]] && return
  stopping=1
  say "stopping services..."
  if [[ -n "$ready_pid" ]]; then kill -TERM "$ready_pid" 2>/dev/null || true; fi
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -n "$started_kafka" ]]; then bash infra/kafka/kafka.sh stop; fi
  if [[ -n "$started_apertium" ]]; then bash infra/apertium/apertium.sh stop; fi
  say "stopped"
}
trap 'stop_all; exit 130' INT TERM
trap 'stop_all; exit 129' HUP
trap 'stop_all' EXIT
if [[ -z "${KAFKA_BROKERS:-}" ]]; then
  if ! bash infra/kafka/kafka.sh status >/dev/null 2>&1; then started_kafka=1; fi
  bash infra/kafka/kafka.sh start
fi
# Apertium (real rule-based translation, from Debian): without it the stack still runs, with the other
# engines only; the script has said why in one line.
if [[ -z "${APERTIUM_URL:-}" ]]; then
  export APERTIUM_PORT="${APERTIUM_PORT:-2737}"
  if ! bash infra/apertium/apertium.sh status >/dev/null 2>&1; then started_apertium=1; fi
  if bash infra/apertium/apertium.sh start; then
    export APERTIUM_URL="http://127.0.0.1:$APERTIUM_PORT"
  else
    started_apertium=""
    say "continuing without Apertium: only the other configured engines translate"
  fi
fi
node --disable-warning=TimeoutNegativeWarning infra/db/dist/migrate.cli.js up
node --disable-warning=TimeoutNegativeWarning libs/kafka/dist/create-topics.cli.js

# Each service reads PORT; give each its own (override with GATEWAY_PORT, TRANSLATOR_PORT, NLI_PORT, WORKER_PORT).
declare -A ports=([gateway]="${GATEWAY_PORT:-3000}" [translator]="${TRANSLATOR_PORT:-3004}" [nli]="${NLI_PORT:-3005}" [worker]="${WORKER_PORT:-3006}")
export TRANSLATOR_URL="${TRANSLATOR_URL:-http://127.0.0.1:${ports[translator]}}"
export NLI_URL="${NLI_URL:-http://127.0.0.1:${ports[nli]}}"
export WORKER_URL="${WORKER_URL:-http://127.0.0.1:${ports[worker]}}"
for service in gateway translator nli worker; do
  PORT="${ports[$service]}" node --import @tp/runtime/instrument --enable-source-maps --disable-warning=TimeoutNegativeWarning \
    "services/$service/dist/main.js" &
  pids+=("$!")
done
say "starting gateway :${ports[gateway]}, translator :${ports[translator]}, nli :${ports[nli]}, worker :${ports[worker]}; a [start] ready line follows once every /ready passes (Ctrl-C stops everything)"
# The ready line (libs/platform/src/stack-ready.cli.ts): not part of the services, so its end stops nothing.
node libs/platform/dist/stack-ready.cli.js "gateway=http://127.0.0.1:${ports[gateway]}" \
  "translator=$TRANSLATOR_URL" "nli=$NLI_URL" "worker=$WORKER_URL" &
ready_pid=$!
# Runs until Ctrl-C, or until one service exits (then the others are stopped too).
set +e
wait -n "${pids[@]}"
status=$?
say "a service exited with status $status"
exit "$status"
