#!/usr/bin/env bash
# Checks the Prometheus files of infra/observability with promtool (from Debian's `prometheus` package).
#
#   infra/observability/promtool.sh install  apt-get install prometheus when promtool is missing (apt-get
#                                            update first when the package is unknown); one line and
#                                            exit 1 when that cannot be done here
#   infra/observability/promtool.sh check    install, then `promtool check config` (both scrape configs),
#                                            `promtool check rules` (the alerts and the Grafana dashboard's
#                                            queries) and `promtool test rules` (a second or two)
#
# The package also installs a Prometheus server unit; this script never starts it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { echo "[promtool] $*" >&2; }

install() {
  command -v promtool >/dev/null && return 0
  local sudo=""
  if [[ $EUID -ne 0 ]]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      log "cannot install promtool: apt-get needs root here (run: sudo apt-get install -y prometheus)"
      exit 1
    fi
  fi
  command -v apt-get >/dev/null || {
    log "cannot install promtool: apt-get is not available (it comes from the Debian/Ubuntu package prometheus)"
    exit 1
  }
  # A package apt does not know yet means the package lists are missing or stale.
  if ! apt-cache show prometheus >/dev/null 2>&1; then
    log "updating the package lists (apt-get update)..."
    $sudo apt-get update -qq >/dev/null 2>&1 || true
  fi
  log "installing prometheus (for promtool; apt-get)..."
  local apt_log; apt_log="$(mktemp)"
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus \
    >"$apt_log" 2>&1; then
    log "cannot install prometheus with apt-get: $(grep -m1 -E '^E:' "$apt_log" || tail -n 1 "$apt_log")"
    rm -f "$apt_log"
    exit 1
  fi
  rm -f "$apt_log"
}

# The dashboard's queries as recording rules, so that promtool parses them too ($__rate_interval,
# which Grafana fills in, becomes 5m).
dashboard_queries_as_rules() {
  node -e '
    const dashboard = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((t) => t.expr));
    const rules = exprs.map((expr, i) =>
      `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(expr.replaceAll("$__rate_interval", "5m"))}`);
    console.log(["groups:", "  - name: dashboard", "    rules:", ...rules].join("\n"));
  ' "$here/grafana/dashboards/platform.json"
}

check() {
  install
  cd "$here"
  promtool check config prometheus.yml prometheus.local.yml >/dev/null
  promtool check rules alerts.yml >/dev/null
  local queries; queries="$(mktemp --suffix .yml)"
  dashboard_queries_as_rules >"$queries"
  promtool check rules "$queries" >/dev/null || { rm -f "$queries"; log "a dashboard query does not parse"; exit 1; }
  rm -f "$queries"
  promtool test rules alerts.test.yml
}

case "${1:-}" in
  install) install ;;
  check) check ;;
  *) echo "usage: $0 install|check" >&2; exit 2 ;;
esac
