#!/usr/bin/env python3
"""int8 against fp32 for one model of the zoo: runs `tessera run` on random
inputs (seeded; token ids below 100 for integer inputs, N(0, 1) otherwise) in
fp32 and quantized with the model's calibration inputs, and prints the mean and
worst max|int8 - fp32| / max|fp32| and how often the top-1 class agrees.

Usage (from the repository root, after the zoo models were exported):
  /usr/bin/python3 tools/models/zoo_int8_error.py --model transformer [--build build] [--n 32]
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    d = os.path.join(args.build, "models", "zoo", args.model)
    tessera = os.path.join(args.build, "tools", "tessera")
    x0 = np.load(os.path.join(d, "input.npy"))
    r = np.random.RandomState(args.seed)
    errs, agree = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        x_path, f_path, q_path = (os.path.join(tmp, k + ".npy") for k in "xfq")
        for _ in range(args.n):
            x = r.randint(0, 100, size=x0.shape) if x0.dtype.kind == "i" else r.randn(*x0.shape)
            np.save(x_path, x.astype(x0.dtype))
            run = [tessera, "run", os.path.join(d, "model.onnx"), "--input", x_path, "--output"]
            subprocess.run(run + [f_path], check=True, capture_output=True)
            subprocess.run(run + [q_path, "--calib", os.path.join(d, "calib.npy")], check=True, capture_output=True)
            f, q = np.load(f_path), np.load(q_path)
            errs.append(float(np.abs(f - q).max() / np.abs(f).max()))
            agree += int(f.argmax() == q.argmax())
    print(f"{args.model}: {args.n} random inputs (seed {args.seed}): max|int8 - fp32| / max|fp32| mean "
          f"{np.mean(errs):.3f}, worst {np.max(errs):.3f}; top-1 agreement {agree}/{args.n}")


if __name__ == "__main__":
    main()
