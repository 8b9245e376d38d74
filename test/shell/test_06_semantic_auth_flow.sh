#!/usr/bin/env bash
# ST-6 — Expected: a mix of auth code, knowledge and reasoning
source "$(dirname "$0")/lib.sh"
out=$(search "authentication flow")
types=$(echo "$out" | column 2 | sort -u)
if echo "$out" | rows | grep -qi "auth" && echo "$types" | grep -Eq '^(function|know|reas)$' && [ "$(echo "$types" | grep -Ec '^(function|method|class|know|reas)$')" -ge 2 ]; then
  pass "ST-6 semantic: authentication flow"
fi
fail "ST-6 semantic: authentication flow" 'rows mentioning "auth", of at least two types among function/method/class/know/reas' "$out"
