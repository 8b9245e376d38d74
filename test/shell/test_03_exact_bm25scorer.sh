#!/usr/bin/env bash
# ST-3 — Expected: bm25_scorer.py:BM25Scorer ranks #1
source "$(dirname "$0")/lib.sh"
expect_first "ST-3 exact BM25Scorer" "BM25Scorer" "bm25_scorer\.py.*BM25Scorer"
