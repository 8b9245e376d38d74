#!/usr/bin/env bash
# ST-1 — Expected: orchestrator.py:SOAROrchestrator ranks #1
source "$(dirname "$0")/lib.sh"
expect_first "ST-1 exact SOAROrchestrator" "SOAROrchestrator" "orchestrator\.py.*SOAROrchestrator"
