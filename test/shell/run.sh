#!/usr/bin/env bash
# Runs the seed 003 shell tests (ST-1..ST-20) against `quarry` on a fresh copy of the fixture workspace.
#   QUARRY="node dist/cli.js" bash test/shell/run.sh      (default: quarry on PATH)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export QUARRY="${QUARRY:-quarry}"
export WS="${WS:-$(mktemp -d)/aurora}"
bash "$here/setup.sh" "$WS" || { echo "setup failed"; exit 1; }
passed=0; failed=0
for t in "$here"/test_*.sh; do
  if bash "$t"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
