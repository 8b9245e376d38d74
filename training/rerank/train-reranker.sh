#!/usr/bin/env bash
# Reproduces models/quarry-rerank: collects candidate lists with the real engine over the packages quarry-code held
# out (docstring -> code, comments blanked), trains the MLP and writes the model. Evaluation lists come from the
# benchmark corpora when `npm run bench` has fetched them.
#   npm run train-reranker            (or: bash training/rerank/train-reranker.sh [train.py options])
set -euo pipefail
cd "$(dirname "$0")/../.."
bash training/install.sh
if [ ! -f training/.cache/pairs.jsonl ]; then
  node training/fetch-sources.mjs
  npx tsx training/extract-pairs.ts
fi
out=training/.cache/rerank
mkdir -p "$out"
rm -f "$out/train.jsonl" "$out/eval.jsonl"
LANCEDB_LOG=error npx tsx training/rerank/collect.ts --out "$out/train.jsonl" --from-pairs training/.cache/pairs.jsonl --npm training/rerank/npm-packages.json --work "$out/work"
LANCEDB_LOG=error npx tsx training/rerank/collect.ts --out "$out/eval.jsonl" --bench quarry,python-stdlib,rxjs,lodash,go-stdlib --per 150
/usr/bin/python3 training/rerank/train.py --train "$out/train.jsonl" --eval "$out/eval.jsonl" --out models/quarry-rerank "$@"
echo "train-reranker: done; run 'npm run bench' to measure hybrid + rerank next to hybrid alone"
