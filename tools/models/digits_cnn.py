#!/usr/bin/env python3
"""Trains a small CNN on the 8x8 digits set bundled with scikit-learn and
exports it to ONNX; Tessera's accuracy tests and `make demo` use it.

Deterministic (fixed seeds, one thread), a few seconds on one core. Writes
into --out: model.onnx (input "x" [N,1,8,8] with a symbolic batch, output
"probs" [N,10]), calib.npy (200 training images), test_x.npy (N,1,8,8
float32), test_y.npy (N int64 labels), torch_accuracy.txt.

Usage: /usr/bin/python3 tools/models/digits_cnn.py --out DIR
"""
import argparse
import os

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


class DigitsCnn(torch.nn.Module):
    """conv-bn-relu, a residual conv block, max pool, conv, global average, fc, softmax."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.c2 = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.c3 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        a = torch.relu(self.bn1(self.c1(x)))
        a = torch.relu(a + self.c2(a))
        a = torch.nn.functional.max_pool2d(a, 2)
        a = torch.relu(self.c3(a))
        a = torch.flatten(torch.nn.functional.adaptive_avg_pool2d(a, 1), 1)
        return torch.softmax(self.fc(a), dim=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=args.seed, stratify=y)
    model = DigitsCnn()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    g = torch.Generator().manual_seed(args.seed)
    for _ in range(args.epochs):
        model.train()
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            probs = model(xt[idx])
            loss = torch.nn.functional.nll_loss(torch.log(probs + 1e-9), yt[idx])
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(torch.from_numpy(x_test)).argmax(1).numpy() == y_test).mean()
    torch.onnx.export(model, torch.from_numpy(x_test[:1]), os.path.join(args.out, "model.onnx"), opset_version=13,
                      input_names=["x"], output_names=["probs"],
                      dynamic_axes={"x": {0: "N"}, "probs": {0: "N"}},
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    np.save(os.path.join(args.out, "calib.npy"), x_train[:200])
    np.save(os.path.join(args.out, "test_x.npy"), x_test)
    np.save(os.path.join(args.out, "test_y.npy"), y_test)
    with open(os.path.join(args.out, "torch_accuracy.txt"), "w") as f:
        f.write(f"{acc:.6f}\n")
    print(f"digits CNN: torch fp32 test accuracy {acc:.4f} on {len(y_test)} images")


if __name__ == "__main__":
    main()
