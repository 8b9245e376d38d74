#!/usr/bin/env python3
"""Trains Quarry's static code embedding model and exports the int8 artifact the engine loads.

    /usr/bin/python3 training/train.py [--dims 256] [--epochs 4] [--out models/quarry-code]

Model: one table of `rows` vectors (vocabulary sub-words + hashed character 3-grams, see
server/src/engine/embedding/static/features.ts) and a learned weight per row; a text's vector is the
weighted sum of its rows' vectors (row weight x (1 + ln count)), L2-normalised. Trained with the symmetric
in-batch contrastive loss (InfoNCE) on (doc sentence, code without its doc) pairs.

Export: the row weights are folded into the table, which is quantised per row to int8 with a float32 scale.
"""
import argparse
import hashlib
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ENC = os.environ.get('QUARRY_ENCODED') or os.path.join(HERE, '.cache', 'encoded')


def load_field(split, field):
    rows = np.fromfile(os.path.join(ENC, f'{split}.{field}.rows.u32'), dtype='<u4').astype(np.int64)
    weights = np.fromfile(os.path.join(ENC, f'{split}.{field}.weights.f32'), dtype='<f4')
    offsets = np.fromfile(os.path.join(ENC, f'{split}.{field}.offsets.u32'), dtype='<u4').astype(np.int64)
    return rows, weights, offsets


class Field:
    def __init__(self, split, field):
        self.rows, self.weights, self.offsets = load_field(split, field)
        self.n = len(self.offsets) - 1

    def batch(self, idx):
        """Flat rows, weights and bag offsets for the pairs `idx` (torch tensors)."""
        starts = self.offsets[idx]
        ends = self.offsets[idx + 1]
        lens = ends - starts
        flat = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)]) if len(idx) else np.zeros(0, np.int64)
        bag = np.zeros(len(idx), dtype=np.int64)
        bag[1:] = np.cumsum(lens)[:-1]
        return torch.from_numpy(self.rows[flat]), torch.from_numpy(self.weights[flat]), torch.from_numpy(bag)


class StaticEmbedder(torch.nn.Module):
    def __init__(self, rows, dims):
        super().__init__()
        self.table = torch.nn.EmbeddingBag(rows, dims, mode='sum', sparse=True)
        torch.nn.init.normal_(self.table.weight, std=1.0 / math.sqrt(dims))
        # softplus(0.5413) = 1: every row starts with weight 1.
        self.logit = torch.nn.Parameter(torch.full((rows,), 0.5413))

    def forward(self, rows, tfw, offsets):
        w = F.softplus(self.logit[rows]) * tfw
        return F.normalize(self.table(rows, offsets, per_sample_weights=w), dim=-1)

    def folded(self):
        """Table with the row weights folded in (what the run time sums)."""
        with torch.no_grad():
            return self.table.weight * F.softplus(self.logit)[:, None]


def quantize(table):
    scale = np.abs(table).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(table / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def embed_all(table, field, batch=4096):
    """Vectors of every text of a field with a plain numpy table (float or dequantised)."""
    out = np.zeros((field.n, table.shape[1]), dtype=np.float32)
    for s in range(0, field.n, batch):
        for i in range(s, min(field.n, s + batch)):
            a, b = field.offsets[i], field.offsets[i + 1]
            v = (table[field.rows[a:b]] * field.weights[a:b, None]).sum(axis=0)
            n = np.linalg.norm(v)
            out[i] = v / n if n > 0 else v
    return out


def retrieval_metrics(qv, cv, langs, k=10):
    """MRR@10 and Recall@1/10 of query i -> code i among all codes, overall and per language."""
    ranks = np.zeros(len(qv), dtype=np.int64)
    for s in range(0, len(qv), 1024):
        sims = qv[s:s + 1024] @ cv.T
        gold = sims[np.arange(sims.shape[0]), np.arange(s, s + sims.shape[0])]
        ranks[s:s + sims.shape[0]] = (sims > gold[:, None]).sum(axis=1) + 1

    def summary(mask):
        r = ranks[mask]
        if not len(r):
            return None
        return {'n': int(len(r)), 'mrr10': float(np.where(r <= k, 1.0 / r, 0).mean()), 'recall1': float((r == 1).mean()), 'recall10': float((r <= k).mean())}

    out = {'all': summary(np.ones(len(ranks), bool))}
    for lang in sorted(set(langs)):
        out[lang] = summary(np.array([l == lang for l in langs]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dims', type=int, default=256)
    ap.add_argument('--epochs', type=float, default=4)
    ap.add_argument('--batch', type=int, default=512)
    ap.add_argument('--lr', type=float, default=0.01)
    ap.add_argument('--temperature', type=float, default=0.05)
    ap.add_argument('--doc-prob', type=float, default=0.3, help='chance of training on the first paragraph instead of the first sentence')
    ap.add_argument('--grouped', type=float, default=0.0, help='share of batches drawn from one run of package-sorted pairs (harder in-batch negatives)')
    ap.add_argument('--limit', type=int, default=0, help='train on the first N pairs only (quick experiments)')
    ap.add_argument('--fusion-identifier', type=float, default=0.25, help='dense weight for identifier-like queries, written to model.json (measured by npm run bench)')
    ap.add_argument('--fusion-natural', type=float, default=1.0, help='dense weight for natural-language queries, written to model.json (measured by npm run bench)')
    ap.add_argument('--seed', type=int, default=13)
    ap.add_argument('--threads', type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument('--out', default=os.path.join(HERE, '..', 'models', 'quarry-code'))
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(args.threads)

    spec = json.load(open(os.path.join(ENC, 'spec.json')))
    vocab = json.load(open(os.path.join(ENC, 'vocab.json')))
    train = {f: Field('train', f) for f in ('q', 'doc', 'code')}
    valid = {f: Field('valid', f) for f in ('q', 'code')}
    valid_langs = [m[0] for m in json.load(open(os.path.join(ENC, 'valid.meta.json')))]
    train_meta = json.load(open(os.path.join(ENC, 'train.meta.json')))
    n = train['q'].n if not args.limit else min(args.limit, train['q'].n)
    packages = [m[1] for m in train_meta[:n]]
    print(f'train: {n} pairs, valid: {valid["q"].n}, rows {spec["rows"]}, dims {args.dims}', file=sys.stderr)

    model = StaticEmbedder(spec['rows'], args.dims)
    # Sparse gradients for the table (a batch touches a small part of it), dense Adam for the row weights.
    opts = [torch.optim.SparseAdam(model.table.parameters(), lr=args.lr), torch.optim.Adam([model.logit], lr=args.lr)]
    steps = int(args.epochs * n / args.batch)
    scheds = [torch.optim.lr_scheduler.OneCycleLR(o, max_lr=args.lr, total_steps=steps, pct_start=0.05, anneal_strategy='cos') for o in opts]
    t0 = time.time()
    order = np.random.permutation(n)
    pos = 0
    # Pairs in package order (packages shuffled): a batch cut from it holds neighbours from the same code base.
    by_package = {}
    for i, p in enumerate(packages):
        by_package.setdefault(p, []).append(i)
    for step in range(steps):
        if args.grouped and np.random.rand() < args.grouped:
            if step % 100 == 0 or 'flat' not in locals():
                names = list(by_package)
                np.random.shuffle(names)
                flat = np.concatenate([np.random.permutation(by_package[p]) for p in names])
            start = np.random.randint(0, max(1, n - args.batch))
            idx = flat[start:start + args.batch]
        else:
            if pos + args.batch > n:
                order = np.random.permutation(n)
                pos = 0
            idx = order[pos:pos + args.batch]
            pos += args.batch
        use_doc = np.random.rand(len(idx)) < args.doc_prob
        qa = train['q'].batch(idx[~use_doc])
        qb = train['doc'].batch(idx[use_doc])
        perm = np.concatenate([np.nonzero(~use_doc)[0], np.nonzero(use_doc)[0]])
        qv = torch.cat([model(*qa), model(*qb)])
        cv = model(*train['code'].batch(idx[perm]))
        logits = qv @ cv.T / args.temperature
        labels = torch.arange(len(idx))
        loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
        for o in opts:
            o.zero_grad()
        loss.backward()
        for o, sc in zip(opts, scheds):
            o.step()
            sc.step()
        if step % 100 == 0 or step == steps - 1:
            print(f'step {step}/{steps} loss {loss.item():.4f} lr {scheds[0].get_last_lr()[0]:.5f} {time.time() - t0:.0f}s', file=sys.stderr)
    train_seconds = time.time() - t0

    folded = model.folded().numpy().astype(np.float32)
    q8, scale = quantize(folded)
    deq = q8.astype(np.float32) * scale[:, None]
    metrics = {}
    for name, table in (('float32', folded), ('int8', deq)):
        metrics[name] = retrieval_metrics(embed_all(table, valid['q']), embed_all(table, valid['code']), valid_langs)
        print(f'valid ({name}): {json.dumps(metrics[name]["all"])}', file=sys.stderr)

    os.makedirs(args.out, exist_ok=True)
    table_path = os.path.join(args.out, 'table.i8')
    scale_path = os.path.join(args.out, 'scales.f32')
    q8.tofile(table_path)
    scale.astype('<f4').tofile(scale_path)
    sha = lambda p: hashlib.sha256(open(p, 'rb').read()).hexdigest()
    lock = json.load(open(os.path.join(HERE, 'sources.lock.json')))
    kept = [e for e in lock['debian'] + lock['npm'] if e.get('kept')]
    langs = {}
    for lang, _ in train_meta:
        langs[lang] = langs.get(lang, 0) + 1
    meta = {
        'format': 'quarry-static-embedding/1',
        'name': 'quarry-code',
        'version': 1,
        'dims': args.dims,
        'rows': spec['rows'],
        'buckets': spec['buckets'],
        'maxWords': spec['maxWords'],
        'files': {'table': {'path': 'table.i8', 'dtype': 'int8', 'shape': [spec['rows'], args.dims], 'sha256': sha(table_path)},
                  'scales': {'path': 'scales.f32', 'dtype': 'float32le', 'shape': [spec['rows']], 'sha256': sha(scale_path)}},
        'training': {
            'pairs': {'train': n, 'valid': valid['q'].n, 'trainByLanguage': langs},
            'sources': {'packages': len(kept), 'debian': sum(1 for e in lock['debian'] if e.get('kept')), 'npm': sum(1 for e in lock['npm'] if e.get('kept')),
                        'lock': 'training/sources.lock.json', 'licences': 'permissive only (see training/sources.json)'},
            'hyperparameters': {k: v for k, v in vars(args).items() if k not in ('out', 'threads', 'fusion_identifier', 'fusion_natural', 'limit')} | {'steps': steps, 'optimizer': 'SparseAdam (table) + Adam (row weights)', 'schedule': 'one-cycle cosine', 'loss': 'symmetric InfoNCE, in-batch negatives'},
            'seconds': round(train_seconds, 1),
            'torch': torch.__version__,
            'validation': metrics,
        },
        'fusion': {'identifier': args.fusion_identifier, 'natural': args.fusion_natural},
        'vocab': vocab,
    }
    json.dump(meta, open(os.path.join(args.out, 'model.json'), 'w'), indent=None, separators=(',', ':'))
    print(f'wrote {args.out} ({os.path.getsize(table_path) / 1e6:.1f} MB table) in {train_seconds:.0f}s of training', file=sys.stderr)


if __name__ == '__main__':
    main()
