#!/usr/bin/env bash
# Apertium APy (rule-based machine translation from Debian), installed and run natively.
#
#   infra/apertium/apertium.sh install  apt-get install apertium-apy and the pairs of APERTIUM_PAIRS that are
#                                       missing (apt-get update first when a package is unknown); one line
#                                       and exit 1 when that cannot be done here
#   infra/apertium/apertium.sh start    install, then start APy in the background, listening on 127.0.0.1
#                                       only (apy-loopback.py), and wait until /listPairs answers with every
#                                       installed pair; reuses an APy already answering
#   infra/apertium/apertium.sh stop     stop the APy this script started (SIGTERM, then SIGKILL)
#   infra/apertium/apertium.sh status   whether an APy answers on the port and whether this script started it
#
# Settings (environment): APERTIUM_PAIRS (Debian package suffixes, space or comma separated; default below),
# APERTIUM_PORT (default 2737), APERTIUM_RUN_DIR (pid and log; default <repo>/.run/apertium),
# APERTIUM_START_TIMEOUT (s, default 60),
# APERTIUM_STOP_TIMEOUT (s, default 8).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# The default pairs: English to Spanish, Catalan and Galician, French-Spanish, Spanish-Portuguese, Spanish-Catalan,
# Spanish-Italian and Russian-Ukrainian (each package serves both directions).
default_pairs="eng-spa eng-cat en-gl fr-es es-pt spa-cat spa-ita rus-ukr"
pairs="${APERTIUM_PAIRS:-$default_pairs}"
pairs="${pairs//,/ }"
port="${APERTIUM_PORT:-2737}"
run_dir="${APERTIUM_RUN_DIR:-$repo/.run/apertium}"
pid_file="$run_dir/apy.pid"
log_file="$run_dir/apy.log"
modes_dir=/usr/share/apertium/modes
start_timeout="${APERTIUM_START_TIMEOUT:-60}"
stop_timeout="${APERTIUM_STOP_TIMEOUT:-8}"
# Pipelines per direction: one per core. APy runs one request at a time in a pipeline, so a second one
# lets two requests of a direction run at once; APy starts it only when a request finds the first busy.
pipelines="$(nproc 2>/dev/null || echo 2)"

log() { echo "[apertium] $*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

our_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid; pid="$(cat "$pid_file")"
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }

packages() {
  echo apertium-apy
  local pair
  for pair in $pairs; do
    [[ "$pair" =~ ^[a-z]{2,3}(_[A-Za-z]+)?-[a-z]{2,3}(_[A-Za-z]+)?$ ]] || {
      log "APERTIUM_PAIRS: \"$pair\" is not a pair such as eng-spa"; exit 1
    }
    echo "apertium-$pair"
  done
}

install() {
  local missing=() package
  while read -r package; do installed "$package" || missing+=("$package"); done < <(packages)
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local sudo=""
  if [[ $EUID -ne 0 ]]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      log "cannot install ${missing[*]}: apt-get needs root here (run: sudo apt-get install -y ${missing[*]})"
      exit 1
    fi
  fi
  command -v apt-get >/dev/null || {
    log "cannot install ${missing[*]}: apt-get is not available (Apertium comes from Debian/Ubuntu packages)"
    exit 1
  }
  # A package apt does not know yet means the package lists are missing or stale.
  for package in "${missing[@]}"; do
    if ! apt-cache show "$package" >/dev/null 2>&1; then
      log "updating the package lists (apt-get update)..."
      $sudo apt-get update -qq >/dev/null 2>&1 || true
      break
    fi
  done
  log "installing ${missing[*]} (apt-get)..."
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >"$run_dir/apt.log" 2>&1; then
    log "cannot install ${missing[*]} with apt-get: $(grep -m1 -E '^E:' "$run_dir/apt.log" || tail -n 1 "$run_dir/apt.log")"
    exit 1
  fi
  rm -f "$run_dir/apt.log"
}

# How many directions the APy on the port lists (0 when none answers). Plain bash: no curl needed.
listed_pairs() {
  local reply
  reply="$( { exec 3<>"/dev/tcp/127.0.0.1/$port" &&
    printf 'GET /listPairs HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 && timeout 2 cat <&3; } 2>/dev/null)" || true
  grep -o '"sourceLanguage"' <<<"$reply" | wc -l
}

start() {
  mkdir -p "$run_dir"
  install
  local pid
  if pid="$(our_pid)"; then log "already running (pid $pid) on 127.0.0.1:$port"; return 0; fi
  if port_open "$port"; then
    if [[ "$(listed_pairs)" -gt 0 ]]; then log "an APy already answers on 127.0.0.1:$port; reusing it"; return 0; fi
    log "port $port is taken by something that is not APy: set APERTIUM_PORT"; exit 1
  fi
  : >"$log_file"
  # setsid: APy gets its own session, so a terminal Ctrl-C reaches our stop path, not APy directly.
  # -i/-u/-n: up to $pipelines pipelines per pair, another started when a request finds every one busy
  # (more than 0 users), none started before use; -t: one request's time limit.
  # apy-loopback.py: APy itself, bound to 127.0.0.1 only (apertium-apy binds every interface and has
  # no option against it; its -ak key file refuses nothing). Debian's Python, which has APy's modules.
  APERTIUM_HOST=127.0.0.1 setsid nohup /usr/bin/python3 "$here/apy-loopback.py" -p "$port" -j 1 -n 0 -i "$pipelines" -u 0 -t 20 \
    "$modes_dir" >>"$log_file" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pid_file"
  log "starting APy (pid $pid), log: $log_file"
  # APy reads every mode file before it listens, so its first answer lists every installed pair.
  local waited=0
  until [[ "$(listed_pairs)" -gt 0 ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "APy exited during start; last log lines:"; tail -n 20 "$log_file" >&2; rm -f "$pid_file"; exit 1
    fi
    if (( waited >= start_timeout * 5 )); then
      log "APy not ready after ${start_timeout}s; last log lines:"; tail -n 20 "$log_file" >&2; stop; exit 1
    fi
    sleep 0.2; waited=$((waited + 1))
  done
  log "ready on 127.0.0.1:$port ($(listed_pairs) directions)"
}

stop() {
  local pid
  if ! pid="$(our_pid)"; then log "not running (no APy started by this script)"; rm -f "$pid_file"; return 0; fi
  # APy forks pipeline processes: signal the whole session so none is left behind.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if (( waited >= stop_timeout * 10 )); then
      log "still running after ${stop_timeout}s; sending SIGKILL"; kill -KILL -- "-$pid" 2>/dev/null || true; break
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  rm -f "$pid_file"
  log "stopped"
}

status() {
  local pid
  if pid="$(our_pid)"; then echo "running (pid $pid, started by this script) on 127.0.0.1:$port"
  elif [[ "$(listed_pairs)" -gt 0 ]]; then echo "an APy answers on 127.0.0.1:$port (not started by this script)"
  else echo "not running"; return 1; fi
}

case "${1:-}" in
  install) mkdir -p "$run_dir"; install ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 install|start|stop|status" >&2; exit 2 ;;
esac
