#!/usr/bin/env bash
# ST-15 — Expected: only function chunks, no methods/classes
source "$(dirname "$0")/lib.sh"
expect_types_only "ST-15 --type function" "function" "performance optimization" --type function
