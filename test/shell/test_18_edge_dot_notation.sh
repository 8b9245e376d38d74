#!/usr/bin/env bash
# ST-18 — Expected: dot notation is split (get.user.data finds getUserData among the first results)
source "$(dirname "$0")/lib.sh"
out=$(search "get.user.data")
if echo "$out" | rows | head -n 3 | grep -i "get" | grep -i "user" | grep -qi "data"; then pass "ST-18 dot notation"; fi
fail "ST-18 dot notation" 'a result among the first three containing "get", "user" and "data"' "$out"
