#!/usr/bin/env bash
# ST-12 — Expected: only conversation-log (knowledge) chunks
source "$(dirname "$0")/lib.sh"
expect_types_only "ST-12 --type knowledge" "know" "oauth setup" --type knowledge
