#!/usr/bin/env bash
# ST-4 — Expected: base_chunk.py:BaseChunk.chunk_id ranks #1
source "$(dirname "$0")/lib.sh"
expect_first "ST-4 exact chunk_id" "chunk_id" "base_chunk\.py.*BaseChunk\.chunk_id"
