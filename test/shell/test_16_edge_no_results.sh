#!/usr/bin/env bash
# ST-16 — Expected: a graceful "No results" message
source "$(dirname "$0")/lib.sh"
out=$(search "xyzabc123")
if echo "$out" | grep -Eq "No results|No relevant results"; then pass "ST-16 no results"; fi
fail "ST-16 no results" '"No results" or "No relevant results"' "$out"
