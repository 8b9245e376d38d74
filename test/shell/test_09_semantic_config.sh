#!/usr/bin/env bash
# ST-9 — Expected: config code + config knowledge
source "$(dirname "$0")/lib.sh"
out=$(search "configuration management")
if echo "$out" | rows | head -n 3 | grep -qi "config"; then pass "ST-9 semantic: configuration management"; fi
fail "ST-9 semantic: configuration management" 'top results mentioning "config"' "$out"
