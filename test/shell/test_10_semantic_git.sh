#!/usr/bin/env bash
# ST-10 — Expected: git metadata code + git usage knowledge
source "$(dirname "$0")/lib.sh"
out=$(search "git integration")
if echo "$out" | rows | head -n 3 | grep -qi "git"; then pass "ST-10 semantic: git integration"; fi
fail "ST-10 semantic: git integration" 'top results mentioning "git"' "$out"
