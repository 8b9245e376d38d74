#!/usr/bin/env bash
# ST-14 — Expected: code + reasoning + knowledge in the results
source "$(dirname "$0")/lib.sh"
out=$(search "search algorithm")
n=$(echo "$out" | column 2 | sort -u | grep -c .)
if [ "$n" -ge 2 ]; then pass "ST-14 multi-type results"; fi
fail "ST-14 multi-type results" "at least 2 different Type values" "$out"
