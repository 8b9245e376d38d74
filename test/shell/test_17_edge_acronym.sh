#!/usr/bin/env bash
# ST-17 — Expected: HTTPSConnection found (acronym tokenization)
source "$(dirname "$0")/lib.sh"
out=$(search "HTTPSConnection")
if echo "$out" | rows | head -n 1 | grep -q "https_client\.py.*HTTPSConnection"; then pass "ST-17 acronym HTTPSConnection"; fi
fail "ST-17 acronym HTTPSConnection" "https_client.py HTTPSConnection first" "$out"
