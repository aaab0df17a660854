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

import torch

import digits_common as common


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
    common.setup(args.out, args.seed)
    x_train, x_test, y_train, y_test = common.split(args.seed, images=True)
    model = common.train(DigitsCnn(), x_train, y_train, args.epochs, args.seed,
                         lambda probs, y: torch.nn.functional.nll_loss(torch.log(probs + 1e-9), y))
    acc = common.accuracy(model, x_test, y_test)
    torch.onnx.export(model, torch.from_numpy(x_test[:1]), os.path.join(args.out, "model.onnx"), opset_version=13,
                      input_names=["x"], output_names=["probs"],
                      dynamic_axes={"x": {0: "N"}, "probs": {0: "N"}},
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    common.save_data(args.out, x_train, x_test, y_test, acc)
    print(f"digits CNN: torch fp32 test accuracy {acc:.4f} on {len(y_test)} images")


if __name__ == "__main__":
    main()
