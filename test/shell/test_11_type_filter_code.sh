#!/usr/bin/env bash
# ST-11 — Expected: only functions and classes, no reasoning/knowledge
source "$(dirname "$0")/lib.sh"
expect_types_only "ST-11 --type function,class" "function|class" "user management" --type function,class
