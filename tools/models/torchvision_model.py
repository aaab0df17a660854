#!/usr/bin/env python3
"""Exports a randomly initialised torchvision model to ONNX for Tessera's tests
and benchmarks, with a fixed input and torch's output for it.

Writes into --out: model.onnx, input.npy (1,3,224,224 float32), torch_out.npy,
calib.npy (--calib random images). BatchNorm layers get random running
statistics and affine parameters (a fresh torchvision model has identity
BatchNorm) and are kept in the ONNX graph (TrainingMode.PRESERVE on an eval
model) so the compiler's BatchNorm folding has work to do.

Usage: /usr/bin/python3 tools/models/torchvision_model.py --model resnet18 --out DIR
"""
import argparse
import os

import numpy as np
import torch
import torchvision

from zoo_model import randomize_batchnorm


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, choices=["resnet18", "mobilenet_v2"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--calib", type=int, default=8, help="number of calibration images")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    model = getattr(torchvision.models, args.model)()
    g = torch.Generator().manual_seed(args.seed + 1)
    randomize_batchnorm(model, g)
    model.eval()
    x = torch.randn(1, 3, 224, 224, generator=g)
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, x, os.path.join(args.out, "model.onnx"), opset_version=args.opset,
                      input_names=["input"], output_names=["logits"],
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    np.save(os.path.join(args.out, "input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(args.out, "torch_out.npy"), y.numpy().astype(np.float32))
    calib = torch.randn(args.calib, 3, 224, 224, generator=g)
    np.save(os.path.join(args.out, "calib.npy"), calib.numpy().astype(np.float32))


if __name__ == "__main__":
    main()
