#!/usr/bin/env python3
"""Trains a small MLP (64 -> 128 -> 64 -> 10, ReLU) on the 8x8 digits set
bundled with scikit-learn and exports it to ONNX with a fixed batch of 10
rows, so the compiler's batched dense path is exercised end to end.

Deterministic (fixed seeds, one thread), a few seconds on one core. Writes
into --out: model.onnx (input "x" [10,64], output "logits" [10,10]),
calib.npy (200 training rows), test_x.npy (450, 64 float32), test_y.npy,
torch_accuracy.txt.

Usage: /usr/bin/python3 tools/models/digits_mlp.py --out DIR
"""
import argparse
import os

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=10)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=args.seed, stratify=y)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 10))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    g = torch.Generator().manual_seed(args.seed)
    for _ in range(args.epochs):
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(torch.from_numpy(x_test)).argmax(1).numpy() == y_test).mean()
    torch.onnx.export(model, torch.from_numpy(x_test[:args.batch]), os.path.join(args.out, "model.onnx"),
                      opset_version=13, input_names=["x"], output_names=["logits"], do_constant_folding=False)
    np.save(os.path.join(args.out, "calib.npy"), x_train[:200])
    np.save(os.path.join(args.out, "test_x.npy"), x_test)
    np.save(os.path.join(args.out, "test_y.npy"), y_test)
    with open(os.path.join(args.out, "torch_accuracy.txt"), "w") as f:
        f.write(f"{acc:.6f}\n")
    print(f"digits MLP: torch fp32 test accuracy {acc:.4f} on {len(y_test)} rows")


if __name__ == "__main__":
    main()
