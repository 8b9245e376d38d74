#!/usr/bin/env bash
# ST-7 — Expected: indexing-related chunks (code + reasoning + knowledge)
source "$(dirname "$0")/lib.sh"
out=$(search "memory indexing")
if echo "$out" | rows | head -n 3 | grep -Eqi "index|memory"; then pass "ST-7 semantic: memory indexing"; fi
fail "ST-7 semantic: memory indexing" 'top results mentioning "index" or "memory"' "$out"
