#!/usr/bin/env bash
# scripts/chromium.sh install: installs Debian's chromium (the browser of the console's tests, driven by
# playwright-core, which downloads no browser) when /usr/bin/chromium is missing. As infra/apertium/apertium.sh:
# apt-get as root or through sudo -n, `apt-get update` first when the package is unknown.
set -euo pipefail
log() { echo "[chromium] $*" >&2; }

install() {
  command -v chromium >/dev/null && return 0
  local sudo=""
  if [[ $EUID -ne 0 ]]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      log "cannot install chromium: apt-get needs root here (run: sudo apt-get install -y chromium)"
      exit 1
    fi
  fi
  command -v apt-get >/dev/null || { log "cannot install chromium: apt-get is not available"; exit 1; }
  if ! apt-cache show chromium >/dev/null 2>&1; then
    log "updating the package lists (apt-get update)..."
    $sudo apt-get update -qq >/dev/null 2>&1 || true
  fi
  log "installing chromium (apt-get)..."
  local out
  out=$(mktemp)
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >"$out" 2>&1; then
    log "cannot install chromium with apt-get: $(grep -m1 -E '^E:' "$out" || tail -n 1 "$out")"
    rm -f "$out"
    exit 1
  fi
  rm -f "$out"
}

case "${1:-}" in
  install) install ;;
  *) echo "usage: scripts/chromium.sh install" >&2; exit 2 ;;
esac
