# Shared helpers of the seed 003 shell tests (ST-1..ST-20). Sourced by each test_NN_*.sh.
# Needs: QUARRY (the command, e.g. "quarry" or "node /path/dist/cli.js") and WS (the workspace setup.sh built).
set -uo pipefail
: "${QUARRY:=quarry}"
: "${WS:?WS must name the workspace built by test/shell/setup.sh}"

# quarry search in the workspace, plain text (no colour), stderr included (errors are part of the answer)
search() { (cd "$WS" && NO_COLOR=1 $QUARRY search "$@" 2>&1); }
# the result rows of the table (between the header's dashed rule and the first blank line)
rows() { awk '/^-+(-\+-+)+$/ {on=1; next} on && NF == 0 {exit} on {print}'; }
# one column of the rows (1 = File, 2 = Type, 3 = Name, ...), trailing blanks trimmed
column() { rows | awk -F ' [|] ' -v c="$1" '{v=$c; sub(/ +$/, "", v); print v}'; }

pass() { echo "✅ PASS: $1"; exit 0; }
fail() {
  echo "❌ FAIL: $1"
  echo "Expected: $2"
  echo "Got:"
  echo "$3"
  exit 1
}

# first result row matches an extended regex
expect_first() {
  local name="$1" query="$2" pattern="$3" out
  out=$(search "$query")
  if echo "$out" | rows | head -n 1 | grep -Eq "$pattern"; then pass "$name"; fi
  fail "$name" "first result matching /$pattern/" "$out"
}

# every result's Type is one of the allowed ones (a regex), and there is at least one result
expect_types_only() {
  local name="$1" allowed="$2" out types
  shift 2
  out=$(search "$@")
  types=$(echo "$out" | column 2)
  if [ -n "$types" ] && ! echo "$types" | grep -Evq "^($allowed)$"; then pass "$name"; fi
  fail "$name" "only Type $allowed (at least one result)" "$out"
}
