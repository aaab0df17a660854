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

import torch

import digits_common as common


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=10)
    args = ap.parse_args()
    common.setup(args.out, args.seed)
    x_train, x_test, y_train, y_test = common.split(args.seed, images=False)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 10))
    model = common.train(model, x_train, y_train, args.epochs, args.seed, torch.nn.functional.cross_entropy)
    acc = common.accuracy(model, x_test, y_test)
    torch.onnx.export(model, torch.from_numpy(x_test[:args.batch]), os.path.join(args.out, "model.onnx"),
                      opset_version=13, input_names=["x"], output_names=["logits"], do_constant_folding=False)
    common.save_data(args.out, x_train, x_test, y_test, acc)
    print(f"digits MLP: torch fp32 test accuracy {acc:.4f} on {len(y_test)} rows")


if __name__ == "__main__":
    main()
