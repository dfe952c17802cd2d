#!/usr/bin/env bash
# Native single-node Kafka (KRaft) from Maven Central jars: no Docker needed.
#
#   infra/kafka/kafka.sh start    fetch jars if missing, format storage once, start in the background,
#                                 wait until the broker logs "Kafka Server started"; reuses a running broker
#   infra/kafka/kafka.sh stop     stop the broker this script started (SIGTERM, then SIGKILL after a timeout)
#   infra/kafka/kafka.sh status   print whether a broker answers and whether this script started it
#   infra/kafka/kafka.sh kill     SIGKILL the broker this script started (a crash, for tests)
#   infra/kafka/kafka.sh fetch    fetch the jars if missing (before starting several nodes at once)
#
# Settings (environment): KAFKA_RUN_DIR (data, pid and log; default <repo>/.run/kafka),
# KAFKA_PORT (default 9092), KAFKA_CONTROLLER_PORT (default 9093), KAFKA_HEAP_OPTS,
# KAFKA_START_TIMEOUT (s, default 90), KAFKA_STOP_TIMEOUT (s, default 8).
#
# A node of a cluster (each node a broker and a controller; one KAFKA_RUN_DIR per node):
# KAFKA_NODE_ID (default 1), KAFKA_QUORUM_VOTERS (every controller, `1@127.0.0.1:9093,2@...`; default
# this node alone), KAFKA_CLUSTER_ID (the same for every node; default a new one at the first start),
# KAFKA_INTERNAL_REPLICATION (copies of the internal topics and default.replication.factor; default 1).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
run_dir="${KAFKA_RUN_DIR:-$repo/.run/kafka}"
port="${KAFKA_PORT:-9092}"
controller_port="${KAFKA_CONTROLLER_PORT:-9093}"
data_dir="$run_dir/data"
pid_file="$run_dir/kafka.pid"
log_file="$run_dir/kafka.log"
start_timeout="${KAFKA_START_TIMEOUT:-90}"
stop_timeout="${KAFKA_STOP_TIMEOUT:-8}"
heap_opts="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
node_id="${KAFKA_NODE_ID:-1}"
voters="${KAFKA_QUORUM_VOTERS:-$node_id@127.0.0.1:$controller_port}"
internal_rf="${KAFKA_INTERNAL_REPLICATION:-1}"
internal_isr=$(( internal_rf > 1 ? 2 : 1 ))

log() { echo "[kafka] $*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

our_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid; pid="$(cat "$pid_file")"
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

ensure_jars() {
  local stamp="$here/lib/.complete"
  if [[ -f "$stamp" && "$stamp" -nt "$here/pom.xml" ]]; then return 0; fi
  command -v mvn >/dev/null || { log "Maven (mvn) is needed to fetch the Kafka jars"; exit 1; }
  log "fetching Kafka jars from Maven Central (first run only)..."
  rm -rf "$here/lib"
  mvn -q -B -f "$here/pom.xml" package
  touch "$stamp"
}

# The settings of this node on top of server.properties, one `key=value` a line.
settings() {
  cat <<EOS
log.dirs=$data_dir
node.id=$node_id
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.quorum.voters=$voters
default.replication.factor=$internal_rf
offsets.topic.replication.factor=$internal_rf
transaction.state.log.replication.factor=$internal_rf
transaction.state.log.min.isr=$internal_isr
share.coordinator.state.topic.replication.factor=$internal_rf
share.coordinator.state.topic.min.isr=$internal_isr
EOS
}

overrides() {
  local line
  while IFS= read -r line; do printf -- '--override\n%s\n' "$line"; done < <(settings)
}

format_storage() {
  [[ -f "$data_dir/meta.properties" ]] && return 0
  mkdir -p "$data_dir"
  local props="$run_dir/server.properties"
  # StorageTool reads the same settings as the broker; write the effective file once (later keys win).
  { cat "$here/server.properties"; settings; } >"$props"
  local cluster_id="${KAFKA_CLUSTER_ID:-}"
  [[ -n "$cluster_id" ]] || cluster_id="$(java -cp "$here/lib/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
  log "formatting storage in $data_dir (cluster $cluster_id)"
  java -cp "$here/lib/*" kafka.tools.StorageTool format --cluster-id="$cluster_id" --config="$props" >/dev/null
}

start() {
  local pid
  if pid="$(our_pid)"; then log "already running (pid $pid) on 127.0.0.1:$port"; return 0; fi
  if port_open "$port"; then log "a broker already listens on 127.0.0.1:$port; reusing it"; return 0; fi
  command -v java >/dev/null || { log "Java is needed to run Kafka"; exit 1; }
  ensure_jars
  mkdir -p "$run_dir"
  format_storage
  : >"$log_file"
  # setsid: the broker gets its own session, so a terminal Ctrl-C reaches our stop path, not the JVM directly.
  # shellcheck disable=SC2046,SC2086
  setsid nohup java $heap_opts -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$here/log4j2.properties" \
    -cp "$here/lib/*" kafka.Kafka "$here/server.properties" $(overrides) \
    >>"$log_file" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pid_file"
  log "starting (pid $pid), log: $log_file"
  local waited=0
  until grep -q "Kafka Server started" "$log_file"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "broker exited during start; last log lines:"; tail -n 30 "$log_file" >&2; rm -f "$pid_file"; exit 1
    fi
    if (( waited >= start_timeout * 5 )); then
      log "not ready after ${start_timeout}s; last log lines:"; tail -n 30 "$log_file" >&2; stop; exit 1
    fi
    sleep 0.2; waited=$((waited + 1))
  done
  log "ready on 127.0.0.1:$port"
}

stop() {
  local pid
  if ! pid="$(our_pid)"; then log "not running (no broker started by this script)"; rm -f "$pid_file"; return 0; fi
  kill -TERM "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if (( waited >= stop_timeout * 10 )); then
      log "still running after ${stop_timeout}s; sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; break
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  rm -f "$pid_file"
  log "stopped"
}

kill_broker() {
  local pid
  if ! pid="$(our_pid)"; then log "not running (no broker started by this script)"; return 0; fi
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  rm -f "$pid_file"
  log "killed (SIGKILL) pid $pid"
}

status() {
  local pid
  if pid="$(our_pid)"; then echo "running (pid $pid, started by this script) on 127.0.0.1:$port"
  elif port_open "$port"; then echo "a broker answers on 127.0.0.1:$port (not started by this script)"
  else echo "not running"; return 1; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  kill) kill_broker ;;
  fetch) ensure_jars ;;
  *) echo "usage: $0 start|stop|status|kill|fetch" >&2; exit 2 ;;
esac
