#!/usr/bin/env python3
"""A zoo model in ONNX Runtime's default quantize_static layout (uint8 QDQ,
written by tools/models/qdq_model.py) compiled for the accelerator: asserts
that every conv/matmul MAC runs there (the share a symmetric --calib model
gets), that sim equals the int8 CPU reference bit for bit, and that the CPU
reference agrees with the ONNX QDQ semantics (NumPy) on the top class; with
--round-trips N, that the compile summary counts N host round trips.

Usage: uint8_qdq_model_test.py --tessera BIN --models DIR --model resnet18 --work DIR [--config CONFIG]
           [--round-trips N]
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd):
    print("+", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout, flush=True)
    if p.returncode:
        sys.exit(f"FAILED ({p.returncode}): {' '.join(cmd)}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--config", default=os.path.join(ROOT, "configs", "default.json"))
    ap.add_argument("--round-trips", type=int)
    o = ap.parse_args()
    src, w = os.path.join(o.models, o.model), o.work
    os.makedirs(w, exist_ok=True)
    run([sys.executable, os.path.join(ROOT, "tools", "models", "qdq_model.py"), "--model",
         os.path.join(src, "model.onnx"), "--calib", os.path.join(src, "calib.npy"), "--out",
         os.path.join(w, "u8.onnx"), "--input", os.path.join(src, "input.npy"), "--ref-out",
         os.path.join(w, "onnx_ref.npy")])
    out = run([o.tessera, "compile", os.path.join(w, "u8.onnx"), "-c", o.config, "-o", os.path.join(w, "u8.tsr")])
    share = float(re.search(r"offload: ([0-9.]+)% of", out).group(1))
    if share != 100.0 or "note:" in out:
        sys.exit(f"FAILED: {share}% of the MACs on the accelerator (want 100%)")
    trips = int(re.search(r"; ([0-9]+) host round trips", out).group(1))
    if o.round_trips is not None and trips != o.round_trips:
        sys.exit(f"FAILED: {trips} host round trips (want {o.round_trips})")
    for t in ("sim", "cpu"):
        run([o.tessera, "run", os.path.join(w, "u8.tsr"), "--target", t, "--input", os.path.join(src, "input.npy"),
             "--output", os.path.join(w, t + ".npy")])
    sim, cpu, ref = (np.load(os.path.join(w, f + ".npy")) for f in ("sim", "cpu", "onnx_ref"))
    if not np.array_equal(sim, cpu):
        sys.exit(f"FAILED: sim and cpu differ in {(sim != cpu).sum()} of {sim.size} elements")
    corr = np.corrcoef(cpu.ravel(), ref.ravel())[0, 1]
    print(f"sim == cpu; top class {cpu.argmax()} (ONNX QDQ reference {ref.argmax()}); correlation {corr:.5f}")
    if cpu.argmax() != ref.argmax() or corr < 0.99:
        sys.exit("FAILED: the int8 CPU reference strays from the ONNX QDQ semantics")


if __name__ == "__main__":
    main()
