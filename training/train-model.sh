#!/usr/bin/env bash
# Reproduces models/quarry-code from nothing on this machine: installs the training tools, fetches the
# pinned sources, extracts and encodes the (doc, code) pairs, trains and exports the int8 model.
#   npm run train-model            (or: bash training/train-model.sh [train.py options])
set -euo pipefail
cd "$(dirname "$0")/.."
bash training/install.sh
node training/fetch-sources.mjs
npx tsx training/extract-pairs.ts
npx tsx training/encode-pairs.ts
/usr/bin/python3 training/train.py "$@"
echo "train-model: done; run 'npm run bench' to measure the model next to BM25 and the alternatives"
