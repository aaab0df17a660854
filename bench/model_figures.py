#!/usr/bin/env python3
"""Compiler back-half figures for docs/performance.md: compiles a generated
model for a config with `tessera compile`, runs it on `sim` with
`tessera run --stats-json`, and prints (markdown) total cycles, GEMM
utilization over the offloaded convolution layers and over the whole network,
each layer against its roofline bound, compile time and host wall time per
inference (best of --repeat runs).

Usage: /usr/bin/python3 bench/model_figures.py [--build build] [--model resnet18]
       [--config configs/default.json] [--repeat 3]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def run(cmd):
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return out, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--config", default="configs/default.json")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    tessera = os.path.join(args.build, "tools", "tessera")
    mdir = os.path.join(args.build, "models", args.model)
    tmp = tempfile.mkdtemp()
    tsr, stats = os.path.join(tmp, "m.tsr"), os.path.join(tmp, "stats.json")
    compile_ms, host_ms = [], []
    for _ in range(args.repeat):
        out, _ = run([tessera, "compile", os.path.join(mdir, "model.onnx"), "-c", args.config, "--calib",
                      os.path.join(mdir, "calib.npy"), "-o", tsr])
        compile_ms.append(float(re.search(r"compile time: ([0-9.]+) ms", out).group(1)))
    x = os.path.join(mdir, "input.npy" if os.path.exists(os.path.join(mdir, "input.npy")) else "test_x.npy")
    for _ in range(args.repeat):
        out, _ = run([tessera, "run", tsr, "--target", "sim", "--input", x, "--output", os.path.join(tmp, "y.npy"),
                      "--stats-json", stats])
        host_ms.append(float(re.search(r"host ([0-9.]+) ms per batch", out).group(1)))
    s = json.load(open(stats))
    cfg = json.load(open(args.config))
    peak = cfg["gemm"]["batch"] * cfg["gemm"]["block_in"] * cfg["gemm"]["block_out"]
    mhz = cfg["clock_mhz"]
    acc = [l for l in s["layers"] if l["where"] == "accelerator"]
    conv = [l for l in acc if l["op"] == "qconv"]
    util = lambda ls: sum(l["useful_macs"] for l in ls) / (peak * sum(l["cycles"] for l in ls))
    print(f"### {args.model} on `{os.path.basename(args.config)}`\n")
    print(f"- total: {s['cycles']:,} cycles ({s['cycles'] / mhz / 1000:.2f} ms at {mhz:g} MHz), "
          f"{s['useful_macs']:,} MACs, DRAM {s['dram_read_bytes']:,} B read / {s['dram_write_bytes']:,} B written")
    print(f"- GEMM utilization: {100 * util(conv):.1f}% over the {len(conv)} offloaded convolution layers, "
          f"{100 * s['gemm_utilization']:.1f}% over the whole network ({len(acc)} accelerator layers)")
    print(f"- compile time (`tessera compile`, front and back half): best {min(compile_ms):.0f} ms of {args.repeat}")
    print(f"- host wall time of one inference on `sim` (data computed): best {min(host_ms):.0f} ms of {args.repeat}\n")
    print("| layer | op | cycles | GEMM util | DRAM bytes | bound | roofline cycles | attained | predicted | error |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for l in acc:
        pred, cyc = l["predicted_cycles"], l["cycles"]
        print(f"| {l['node']} | {l['op']} | {cyc:,} | {100 * l['gemm_utilization']:.1f}% | "
              f"{l['dram_read_bytes'] + l['dram_write_bytes']:,} | {l['bound']} | {l['roofline_cycles']:,} | "
              f"{100 * l['roofline_cycles'] / cyc:.0f}% | {pred:,} | {100 * (pred - cyc) / cyc:+.1f}% |")
    total_pred = sum(l["predicted_cycles"] for l in acc)
    print(f"\nCost model over all accelerator layers: predicted {total_pred:,} vs simulated "
          f"{sum(l['cycles'] for l in acc):,} cycles ({100 * (total_pred - sum(l['cycles'] for l in acc)) / sum(l['cycles'] for l in acc):+.1f}%).")


if __name__ == "__main__":
    sys.exit(main())
