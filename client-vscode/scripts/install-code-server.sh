#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100, the last line that runs on Node 20) into a
# cache directory OUTSIDE the repository, so the end-to-end test can reuse it across runs.
# Idempotent: every step is skipped when its result is already there.
# Prints the code-server binary path as its last line of stdout.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
RIPGREP_CACHE_VERSION=1.15.11          # @vscode/ripgrep version pulled by code-server 4.100.3
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
CACHE_ROOT="${CODEKEEP_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/codekeep-ci}"
INSTALL_DIR="$CACHE_ROOT/code-server-$CODE_SERVER_VERSION"
STAMP="$INSTALL_DIR/.installed"
BIN="$INSTALL_DIR/node_modules/.bin/code-server"

log() { echo "[install-code-server] $*" >&2; }

APT_PACKAGES=(build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep chromium)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  # "install ok installed" only: a removed package keeps a dpkg entry (config-files).
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi

# The stamp is written last, so a half-finished install is redone rather than reused.
if [[ -f "$STAMP" && -x "$BIN" && -d "$INSTALL_DIR/node_modules/code-server/lib/vscode/node_modules" ]]; then
  log "code-server $CODE_SERVER_VERSION already installed in $INSTALL_DIR"
  echo "$BIN"
  exit 0
fi

if ! command -v node-gyp >/dev/null 2>&1 || [[ "$(node-gyp --version 2>/dev/null)" != "v12.4.0" ]]; then
  log "installing node-gyp@12.4.0"
  npm install -g --no-audit --no-fund node-gyp@12.4.0 >&2
fi

# @vscode/ripgrep downloads rg from GitHub at install time; offline it reads this cache
# first. Debian's rg is a drop-in: the tarball only needs `rg` at its root.
export TMPDIR="${TMPDIR:-/tmp}"
RG_CACHE="$TMPDIR/vscode-ripgrep-cache-$RIPGREP_CACHE_VERSION"
if [[ ! -s "$RG_CACHE/$RIPGREP_ASSET" ]]; then
  log "seeding $RG_CACHE/$RIPGREP_ASSET from /usr/bin/rg"
  mkdir -p "$RG_CACHE"
  staging="$(mktemp -d)"
  cp /usr/bin/rg "$staging/rg"
  tar -czf "$RG_CACHE/$RIPGREP_ASSET" -C "$staging" rg
  rm -rf "$staging"
fi

log "installing code-server@$CODE_SERVER_VERSION into $INSTALL_DIR (slow: native modules are rebuilt)"
rm -rf "$INSTALL_DIR"
mkdir -p "$INSTALL_DIR"
echo '{"name":"codekeep-ci-code-server","private":true}' >"$INSTALL_DIR/package.json"
# npm_config_* in the environment reach the nested `npm install` that code-server's
# postinstall runs in lib/vscode: never prompt, run as root, and run dependency install
# scripts (npm 11 skips them unless approved; code-server's native modules need them).
# Offline from an empty HOME: node-gyp would download Node's headers from nodejs.org into
# ~/.cache/node-gyp; the nodejs package ships them in /usr/include/node, so point it there
# (only when they are the running node's own headers). argon2 (code-server's password
# hashing) would fetch a prebuilt binary from GitHub first: build it from source instead.
node_version="$(node -p process.versions.node)"
header_version="$(sed -n 's/^#define NODE_\(MAJOR\|MINOR\|PATCH\)_VERSION \([0-9]*\)$/\2/p' \
  /usr/include/node/node_version.h 2>/dev/null | paste -sd.)"
if [[ "$header_version" == "$node_version" && -f /usr/include/node/common.gypi ]]; then
  export npm_config_nodedir=/usr
else
  log "no headers for node $node_version in /usr/include/node: node-gyp will download them"
fi
export npm_config_build_from_source=argon2
export npm_config_yes=true
export npm_config_unsafe_perm=true
export npm_config_dangerously_allow_all_scripts=true
(cd "$INSTALL_DIR" && npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" >&2)
"$BIN" --version >&2
touch "$STAMP"
echo "$BIN"
