#!/usr/bin/env bash
# ST-8 — Expected: exception handling code, error patterns
source "$(dirname "$0")/lib.sh"
out=$(search "error handling")
if echo "$out" | rows | head -n 3 | grep -Eqi "error|exception"; then pass "ST-8 semantic: error handling"; fi
fail "ST-8 semantic: error handling" 'top results mentioning "error" or "exception"' "$out"
