#!/usr/bin/env bash
# ST-20 — Expected: an error message or help text, and a failing exit status
source "$(dirname "$0")/lib.sh"
out=$(search "")
status=$?
if [ "$status" -ne 0 ] && echo "$out" | grep -Eq "Error|Usage"; then pass "ST-20 empty query"; fi
fail "ST-20 empty query" '"Error" or "Usage" and a non-zero exit status' "$out (exit $status)"
