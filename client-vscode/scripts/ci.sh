#!/usr/bin/env bash
# Everything the VS Code extension needs, from a fresh machine to green: Debian packages
# (only if missing), code-server 4.100.3 in a cache outside the repository (only if
# missing), npm ci, build, lint, unit tests, package (.vsix), and the end-to-end test in
# code-server + chromium against the real `codekeep serve`.
#
# Usage: client-vscode/scripts/ci.sh <bin dir of the venv that has `codekeep`>
#        (or CODEKEEP_BIN_DIR=...). Exits non-zero on any failure; the last line is
#        "client-vscode: N passed, N failed" (unit tests + e2e steps + failed stages).
set -uo pipefail
cd "$(dirname "$0")/.."

BIN_DIR="${1:-${CODEKEEP_BIN_DIR:-}}"
if [[ -z "$BIN_DIR" || ! -x "$BIN_DIR/codekeep" ]]; then
  echo "usage: $0 <venv bin dir containing codekeep> (got '${BIN_DIR}')" >&2
  echo "client-vscode: 0 passed, 1 failed"
  exit 2
fi
BIN_DIR="$(cd "$BIN_DIR" && pwd)"
# Stage logs live outside test-artifacts/ (the e2e run starts that directory afresh).
LOGS="$(mktemp -d "${TMPDIR:-/tmp}/codekeep-vscode-ci.XXXXXX")"
trap 'mkdir -p test-artifacts && cp "$LOGS"/* test-artifacts/ 2>/dev/null; rm -rf "$LOGS"' EXIT

passed=0
failed=0
started=$SECONDS

# Runs one stage; a failing stage counts as one failure. Returns the stage's status.
stage() {
  local name="$1"
  shift
  echo "== $name"
  local t0=$SECONDS
  if "$@"; then
    echo "-- $name ok ($((SECONDS - t0)) s)"
    return 0
  fi
  echo "-- $name FAILED ($((SECONDS - t0)) s)"
  failed=$((failed + 1))
  return 1
}

# A stage that runs tests: its "N passed, N failed" line (the last in its output) is added
# to the totals; no such line (it crashed before counting) is one failure.
counted_stage() {
  local name="$1" log="$LOGS/$2"
  shift 2
  echo "== $name"
  "$@" 2>&1 | tee "$log"
  local line
  line="$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)"
  if [[ -z "$line" ]]; then
    echo "-- $name FAILED before reporting counts"
    failed=$((failed + 1))
    return
  fi
  echo "-- $name: $line"
  passed=$((passed + $(echo "$line" | awk '{print $1}')))
  failed=$((failed + $(echo "$line" | awk '{print $3}')))
}

unit_tests() {
  npx vitest run --reporter=default --reporter=json --outputFile="$LOGS/vitest.json"
  VITEST_JSON="$LOGS/vitest.json" node -e '
    const r = JSON.parse(require("fs").readFileSync(process.env.VITEST_JSON, "utf8"));
    // A file that fails to load fails the run without failing a test: count it once.
    const broken = !r.success && r.numFailedTests === 0 ? 1 : 0;
    console.log(`unit: ${r.numPassedTests} passed, ${r.numFailedTests + broken} failed`);
  '
}

code_server_bin=""
install_code_server() {
  code_server_bin="$(bash scripts/install-code-server.sh | tail -1)" && [[ -x "$code_server_bin" ]]
}

e2e() {
  CODE_SERVER_BIN="$code_server_bin" node test/e2e/run.mjs "$BIN_DIR"
}

ready=true
stage "code-server and Debian packages" install_code_server || ready=false
if stage "npm ci" npm ci --no-audit --no-fund; then
  stage "build" npm run build || ready=false
  stage "lint" npm run lint
  counted_stage "unit tests" unit.log unit_tests
  stage "package" npm run package || ready=false
  if $ready; then
    counted_stage "end-to-end (code-server + chromium)" e2e.log e2e
  else
    echo "-- end-to-end skipped: an earlier stage failed"
    failed=$((failed + 1))
  fi
fi

echo "client-vscode: total $((SECONDS - started)) s"
echo "client-vscode: ${passed} passed, ${failed} failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
