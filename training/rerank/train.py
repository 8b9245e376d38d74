"""Trains Quarry's learned reranker (models/quarry-rerank/model.json) from lists written by collect.ts.

    /usr/bin/python3 training/rerank/train.py --train T.jsonl [--eval E.jsonl] [--out models/quarry-rerank]

Each list is one query's rerank head (the candidates the engine's rerank step sees, in the default pipeline's
order) with one feature row per candidate and a 0/1 label (the candidate holds the answer). The model is a small
MLP scoring each row; the loss is listwise: minus the log of the softmax mass on the list's answers. Packages are
split once into training and validation by name hash; the epoch with the best validation MRR@10 is kept. Evaluation
lists (the benchmark's corpora: never trained on) are only reported, per corpus and query set, next to the
pipeline's own order.
"""
import argparse
import hashlib
import json
import math
import os
import random
import time

import numpy as np
import torch


def load(path):
    lists = []
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if len(d["labels"]) < 2:
                continue
            lists.append(d)
    return lists


def mrr10(order_labels):
    for i, l in enumerate(order_labels[:10]):
        if l:
            return 1.0 / (i + 1)
    return 0.0


def batchify(lists, mean, std, width):
    n = len(lists)
    f = len(mean)
    x = np.zeros((n, width, f), dtype=np.float32)
    y = np.zeros((n, width), dtype=np.float32)
    m = np.zeros((n, width), dtype=bool)
    for i, d in enumerate(lists):
        k = min(width, len(d["labels"]))
        x[i, :k] = (np.asarray(d["features"][:k], dtype=np.float32) - mean) / std
        y[i, :k] = d["labels"][:k]
        m[i, :k] = True
    return torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(m)


class Mlp(torch.nn.Module):
    def __init__(self, f, hidden):
        super().__init__()
        self.l1 = torch.nn.Linear(f, hidden)
        self.l2 = torch.nn.Linear(hidden, 1)

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x))).squeeze(-1)


def listwise_loss(scores, y, m):
    scores = scores.masked_fill(~m, -1e9)
    logp = torch.log_softmax(scores, dim=-1)
    pos = logp.masked_fill(y <= 0, -1e9)
    return -(torch.logsumexp(pos, dim=-1)).mean()


def evaluate(model, lists, mean, std, width):
    if not lists:
        return 0.0, 0.0
    x, y, m = batchify(lists, mean, std, width)
    with torch.no_grad():
        s = model(x).masked_fill(~m, -1e9).numpy()
    base = model_mrr = 0.0
    for i, d in enumerate(lists):
        labels = d["labels"][:width]
        base += mrr10(labels)
        order = sorted(range(len(labels)), key=lambda j: (-s[i, j], j))
        model_mrr += mrr10([labels[j] for j in order])
    return base / len(lists), model_mrr / len(lists)


def held_out(name):
    return hashlib.sha1(("rerank-validation:" + name).encode()).digest()[0] < 32  # ~12% of packages (salted: the packages themselves are quarry-code's hash-chosen validation split)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True, help="lists written by collect.ts (comma-separated: several files with the same features)")
    ap.add_argument("--eval", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--wd", type=float, default=1e-4)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--width", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--version", default=time.strftime("%Y.%m.%d"))
    ap.add_argument("--ignore", default="", help="comma-separated features the model must not use (their weights are 0)")
    ap.add_argument("--compare", default=None, help="a model.json (e.g. the shipped one) to score on the same validation lists, per style")
    ap.add_argument("--drop", default="", help="comma-separated feature columns to remove from the lists (features.ts no longer computes them)")
    ap.add_argument("--init", default=None, help="start from a model.json (e.g. the shipped one): its weights and standardisation for the features it has, zero weights for the new ones")
    ap.add_argument("--select", default="", help="comma-separated styles whose validation MRR@10 picks the epoch (default: every list)")
    ap.add_argument("--cap", default="", help="at most N lists of a style, e.g. kind=1500 (a fixed hash sample, so a synthetic style does not outweigh the rest)")
    ap.add_argument("--styles", default="", help="comma-separated query styles to train on (collect.ts --styles; default: every style in the file)")
    a = ap.parse_args()
    random.seed(a.seed)
    torch.manual_seed(a.seed)
    torch.set_num_threads(max(1, os.cpu_count() or 1))

    files = a.train.split(",")
    names = json.load(open(files[0] + ".features.json"))["features"]
    from_file = []
    for path in files:
        assert json.load(open(path + ".features.json"))["features"] == names, f"{path}: other features than {files[0]}"
        from_file += load(path)
    dropped = [names.index(f) for f in a.drop.split(",") if f]
    if dropped:
        keep_cols = [i for i in range(len(names)) if i not in dropped]
        names = [names[i] for i in keep_cols]
        for d in from_file:
            d["features"] = [[row[i] for i in keep_cols] for row in d["features"]]
    lists = [d for d in from_file if any(d["labels"])]
    if a.styles:
        keep = set(a.styles.split(","))
        lists = [d for d in lists if d["set"] in keep]
    for cap in filter(None, a.cap.split(",")):
        style, n = cap.split("=")
        ranked = sorted((d for d in lists if d["set"] == style), key=lambda d: hashlib.sha1((d["corpus"] + "\0" + d["query"]).encode()).digest())
        drop = {id(d) for d in ranked[int(n):]}
        lists = [d for d in lists if id(d) not in drop]
    train = [d for d in lists if not held_out(d["corpus"])]
    valid = [d for d in lists if held_out(d["corpus"])]
    select = [d for d in valid if not a.select or d["set"] in a.select.split(",")]
    rows = np.concatenate([np.asarray(d["features"], dtype=np.float32) for d in train])
    mean = rows.mean(0)
    std = rows.std(0)
    std[std < 1e-4] = 1.0
    # An ignored feature is standardised to a constant 0 (mean = the value's centre, huge spread) and its weights stay 0.
    ignored = [names.index(f) for f in a.ignore.split(",") if f]
    for i in ignored:
        mean[i] = 0.0
        std[i] = 1e9
    print(f"lists: {len(from_file)} read, {len(lists)} with an answer; train {len(train)} ({len({d['corpus'] for d in train})} packages), "
          f"validation {len(valid)} ({len({d['corpus'] for d in valid})} packages); {rows.shape[1]} features")

    init = json.load(open(a.init)) if a.init else None
    if init:
        # the starting model's features keep its standardisation, so its weights mean what they meant
        for j, f in enumerate(init["features"]):
            i = names.index(f)
            mean[i] = init["mean"][j]
            std[i] = init["std"][j]
        a.hidden = len(init["layers"][0]["weights"])
    x, y, m = batchify(train, mean, std, a.width)
    model = Mlp(rows.shape[1], a.hidden)
    if init:
        with torch.no_grad():
            w1 = torch.zeros(a.hidden, rows.shape[1])
            for j, f in enumerate(init["features"]):
                w1[:, names.index(f)] = torch.tensor([r[j] for r in init["layers"][0]["weights"]])
            model.l1.weight.copy_(w1)
            model.l1.bias.copy_(torch.tensor(init["layers"][0]["bias"]))
            model.l2.weight.copy_(torch.tensor(init["layers"][1]["weights"]))
            model.l2.bias.copy_(torch.tensor(init["layers"][1]["bias"]))
        vb0, vm0 = evaluate(model, select, mean, std, a.width)
        print(f"start ({a.init}): validation MRR@10 pipeline {vb0:.4f} -> reranked {vm0:.4f}")
    if ignored:
        with torch.no_grad():
            model.l1.weight[:, ignored] = 0.0
        model.l1.weight.register_hook(lambda g: g.index_fill(1, torch.tensor(ignored), 0.0))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=a.wd)
    steps = a.epochs * math.ceil(len(train) / a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps)
    best = (-1.0, None, 0)
    if init:
        best = (vm0, {k: v.clone() for k, v in model.state_dict().items()}, -1)
    for epoch in range(a.epochs):
        perm = torch.randperm(len(train))
        total = 0.0
        for s in range(0, len(train), a.batch):
            idx = perm[s:s + a.batch]
            loss = listwise_loss(model(x[idx]), y[idx], m[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        vb, vm = evaluate(model, select, mean, std, a.width)
        if vm > best[0]:
            best = (vm, {k: v.clone() for k, v in model.state_dict().items()}, epoch)
        if epoch % 5 == 4 or epoch == a.epochs - 1:
            print(f"epoch {epoch + 1}: loss {total / len(train):.4f}  validation MRR@10 pipeline {vb:.4f} -> reranked {vm:.4f}")
    model.load_state_dict(best[1])
    vb, vm = evaluate(model, valid, mean, std, a.width)
    print(f"kept epoch {best[2] + 1}: validation MRR@10 {vb:.4f} -> {vm:.4f}")
    by_style = {}
    for style in sorted({d["set"] for d in lists}):
        vs = [d for d in valid if d["set"] == style]
        sb, sm = evaluate(model, vs, mean, std, a.width)
        by_style[style] = {"train": sum(1 for d in train if d["set"] == style), "validation": len(vs), "pipeline_mrr10": round(sb, 4), "reranked_mrr10": round(sm, 4)}
        print(f"  {style:>10}: train {by_style[style]['train']:5d}  validation {len(vs):4d}  MRR@10 {sb:.4f} -> {sm:.4f}")
    if a.compare:
        other = json.load(open(a.compare))
        cols = [names.index(f) for f in other["features"]]
        for style in sorted({d["set"] for d in lists}):
            vs = [d for d in valid if d["set"] == style]
            tot = 0.0
            for d in vs:
                h = (np.asarray(d["features"][:a.width], dtype=np.float64)[:, cols] - np.asarray(other["mean"])) / np.asarray(other["std"])
                for layer in other["layers"]:
                    h = h @ np.asarray(layer["weights"]).T + np.asarray(layer["bias"])
                    h = np.tanh(h) if layer["activation"] == "tanh" else np.maximum(h, 0) if layer["activation"] == "relu" else h
                sc = h[:, 0]
                labels = d["labels"][:a.width]
                order = sorted(range(len(labels)), key=lambda j: (-sc[j], j))
                tot += mrr10([labels[j] for j in order])
            print(f"  {style:>10}: {a.compare} MRR@10 {tot / max(1, len(vs)):.4f}")
    per_package = {}
    for d in lists:
        per_package.setdefault(d["corpus"], {}).setdefault(d["set"], 0)
        per_package[d["corpus"]][d["set"]] += 1

    report = {}
    if a.eval:
        ev = load(a.eval)
        if dropped:
            for d in ev:
                d["features"] = [[row[i] for i in keep_cols] for row in d["features"]]
        groups = {}
        for d in ev:
            groups.setdefault((d["corpus"], d["set"]), []).append(d)
        for (corpus, qset), ls in sorted(groups.items()):
            b, r = evaluate(model, ls, mean, std, a.width)
            report[f"{corpus}/{qset}"] = {"lists": len(ls), "pipeline_mrr10": round(b, 4), "reranked_mrr10": round(r, 4)}
            print(f"eval {corpus:>14} {qset:>9}: {len(ls):4d} lists  MRR@10 pipeline {b:.4f} -> reranked {r:.4f}  ({r - b:+.4f})")

    if a.out:
        os.makedirs(a.out, exist_ok=True)
        sd = model.state_dict()
        doc = {
            "format": "quarry-rerank/1",
            "name": "quarry-rerank",
            "version": a.version,
            "features": names,
            "embedding": "quarry-code",
            "mean": [round(float(v), 6) for v in mean],
            "std": [round(float(v), 6) for v in std],
            "layers": [
                {"weights": [[round(float(w), 6) for w in row] for row in sd["l1.weight"]], "bias": [round(float(b), 6) for b in sd["l1.bias"]], "activation": "tanh"},
                {"weights": [[round(float(w), 6) for w in row] for row in sd["l2.weight"]], "bias": [round(float(b), 6) for b in sd["l2.bias"]], "activation": "linear"},
            ],
            "training": {
                "data": f"lists of the query styles {', '.join(sorted({d['set'] for d in lists}))} (training/rerank/collect.ts, comments blanked) over {len({d['corpus'] for d in lists})} packages no evaluation uses (see lists_per_package)",
                "lists": {"train": len(train), "validation": len(valid)},
                "packages": {"train": len({d["corpus"] for d in train}), "validation": len({d["corpus"] for d in valid})},
                "model": f"MLP {rows.shape[1]}-{a.hidden}-1 (tanh), listwise softmax loss, AdamW lr {a.lr} wd {a.wd}, {a.epochs} epochs, kept epoch {best[2] + 1}" + (f", started from {init['name']}@{init['version']} ({len(init['features'])} features; the new features' weights from 0)" if init else ""),
                "validation_mrr10": {"pipeline": round(vb, 4), "reranked": round(vm, 4)},
                "styles": by_style,
                "lists_per_package": {k: per_package[k] for k in sorted(per_package)},
                "evaluation_mrr10": report,
            },
        }
        with open(os.path.join(a.out, "model.json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"wrote {a.out}/model.json")


if __name__ == "__main__":
    main()
