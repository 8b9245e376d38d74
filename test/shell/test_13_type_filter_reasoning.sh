#!/usr/bin/env bash
# ST-13 — Expected: only reasoning pattern chunks
source "$(dirname "$0")/lib.sh"
expect_types_only "ST-13 --type reasoning" "reas" "decomposition pattern" --type reasoning
