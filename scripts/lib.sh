# Shared by scripts/start.sh and scripts/test.sh: make a fresh clone runnable on this kind of machine.
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

say() { echo "[setup] $*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# node_modules (with the Node 24 binary from the npm "node" package) when missing or older than the lock.
ensure_node_modules() {
  if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
    # npm install, not npm ci: the registry reachable here lacks some other-platform builds of optional
    # native packages (e.g. @swc/core-darwin-*), so the lock cannot list them and npm ci would refuse.
    # npm install still installs exactly the locked versions; --no-save keeps it from adding the entries
    # of other platforms to the lock, so a fresh clone stays clean.
    say "installing node modules..."
    npm install --no-save --no-audit --no-fund --loglevel=error
  fi
  export PATH="$repo/node_modules/.bin:$PATH"
  say "node $(node --version)"
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# Postgres and Redis run on this kind of machine; start them with the machine's own commands if stopped.
ensure_local_services() {
  if [[ -z "${DATABASE_URL:-}" ]] && ! port_open 127.0.0.1 5432 && command -v pg_ctlcluster >/dev/null; then
    say "starting the local Postgres"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  fi
  if [[ -z "${REDIS_URL:-}" ]] && ! port_open 127.0.0.1 6379 && command -v redis-server >/dev/null; then
    say "starting the local Redis"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  fi
}

# Compiles every package to dist/ (incremental: fast when nothing changed).
build() {
  say "building (tsc -b)..."
  tsc -b tsconfig.build.json
}
