#!/usr/bin/env bash
# ST-19 — Expected: camelCase works (getUserData first)
source "$(dirname "$0")/lib.sh"
out=$(search "getUserData")
if echo "$out" | rows | head -n 1 | grep -q "users\.ts.*getUserData"; then pass "ST-19 camelCase getUserData"; fi
fail "ST-19 camelCase getUserData" "users.ts getUserData first" "$out"
