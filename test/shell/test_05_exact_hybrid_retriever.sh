#!/usr/bin/env bash
# ST-5 — Expected: hybrid_retriever.py:HybridRetriever ranks #1
source "$(dirname "$0")/lib.sh"
expect_first "ST-5 exact HybridRetriever" "HybridRetriever" "hybrid_retriever\.py.*HybridRetriever"
