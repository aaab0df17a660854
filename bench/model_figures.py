#!/usr/bin/env python3
"""Compiler back-half figures for docs/performance.md: compiles a generated
model for a config with `tessera compile`, runs it on `sim` with
`tessera run --stats-json`, and prints (markdown) total cycles, GEMM
utilization over the offloaded convolution layers and over the whole network,
each layer against its roofline bound, compile time and host wall time per
inference (best of --repeat runs).

With --cost-model it prints instead the cost model's error table: every
accelerator layer of every --models model on every --configs config, its
simulated and predicted cycles and the bound its roofline names (runs on
`sim --timing-only`: the same cycles, without the data).

Usage: /usr/bin/python3 bench/model_figures.py [--build build] [--model resnet18]
       [--config configs/default.json] [--repeat 3]
       /usr/bin/python3 bench/model_figures.py --cost-model [--models resnet18,mobilenet_v2,digits]
       [--configs configs/default.json,...]
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


class Tool:
    def __init__(self, build):
        self.tessera = os.path.join(build, "tools", "tessera")
        self.models = os.path.join(build, "models")
        self.tmp = tempfile.mkdtemp()

    def compile(self, model, config):
        """Compiles; returns (.tsr path, compile time in ms)."""
        mdir = os.path.join(self.models, model)
        tsr = os.path.join(self.tmp, f"{model}.{os.path.basename(config)}.tsr")
        out, _ = run([self.tessera, "compile", os.path.join(mdir, "model.onnx"), "-c", config, "--calib",
                      os.path.join(mdir, "calib.npy"), "-o", tsr])
        return tsr, float(re.search(r"compile time: ([0-9.]+) ms", out).group(1))

    def run(self, model, tsr, *extra):
        """Runs on sim; returns (stats JSON, host ms per batch)."""
        mdir = os.path.join(self.models, model)
        x = os.path.join(mdir, "input.npy" if os.path.exists(os.path.join(mdir, "input.npy")) else "test_x.npy")
        stats = os.path.join(self.tmp, "stats.json")
        out, _ = run([self.tessera, "run", tsr, "--target", "sim", "--input", x, "--output",
                      os.path.join(self.tmp, "y.npy"), "--stats-json", stats, *extra])
        return json.load(open(stats)), float(re.search(r"host ([0-9.]+) ms per batch", out).group(1))


def error(l):
    return (l["predicted_cycles"] - l["cycles"]) / l["cycles"]


def figures(tool, args):
    compile_ms, host_ms = [], []
    for _ in range(args.repeat):
        tsr, ms = tool.compile(args.model, args.config)
        compile_ms.append(ms)
    for _ in range(args.repeat):
        s, ms = tool.run(args.model, tsr)
        host_ms.append(ms)
    cfg = json.load(open(args.config))
    peak = cfg["gemm"]["batch"] * cfg["gemm"]["block_in"] * cfg["gemm"]["block_out"]
    mhz = cfg["clock_mhz"]
    acc = [l for l in s["layers"] if l["where"] == "accelerator"]
    conv = [l for l in acc if l["op"].startswith("qconv")]  # qconv+max_pool: a pool fused into the epilogue
    util = lambda ls: sum(l["useful_macs"] for l in ls) / (peak * sum(l["cycles"] for l in ls))
    # null: the config does not build the DRAM byte counters (counters.volumes 0).
    nb = lambda *v: "not built" if None in v else f"{sum(v):,}"
    print(f"### {args.model} on `{os.path.basename(args.config)}`\n")
    print(f"- total: {s['cycles']:,} cycles ({s['cycles'] / mhz / 1000:.2f} ms at {mhz:g} MHz), "
          f"{s['useful_macs']:,} MACs, DRAM {nb(s['dram_read_bytes'])} B read / {nb(s['dram_write_bytes'])} B written")
    print(f"- ideal (MACs / {peak}): {s['useful_macs'] / peak:,.0f} cycles; total / ideal = "
          f"{s['cycles'] * peak / s['useful_macs']:.3f}x")
    print(f"- GEMM utilization: {100 * util(conv):.1f}% over the {len(conv)} offloaded convolution layers, "
          f"{100 * s['gemm_utilization']:.1f}% over the whole network ({len(acc)} accelerator layers)")
    print(f"- compile time (`tessera compile`, front and back half): best {min(compile_ms):.0f} ms of {args.repeat}")
    print(f"- host wall time of one inference on `sim` (data computed): best {min(host_ms):.0f} ms of {args.repeat}\n")
    print("| layer | op | cycles | GEMM util | DRAM bytes | bound | roofline cycles | attained | predicted | error |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for l in acc:
        pred, cyc = l["predicted_cycles"], l["cycles"]
        print(f"| {l['node']} | {l['op']} | {cyc:,} | {100 * l['gemm_utilization']:.1f}% | "
              f"{nb(l['dram_read_bytes'], l['dram_write_bytes'])} | {l['bound']} | {l['roofline_cycles']:,} | "
              f"{100 * l['roofline_cycles'] / cyc:.0f}% | {pred:,} | {100 * error(l):+.1f}% |")
    total_pred, total = sum(l["predicted_cycles"] for l in acc), sum(l["cycles"] for l in acc)
    print(f"\nCost model over all accelerator layers: predicted {total_pred:,} vs simulated "
          f"{total:,} cycles ({100 * (total_pred - total) / total:+.1f}%).")


def cost_model(tool, args):
    summary, rows = [], []
    for config in args.configs.split(","):
        for model in args.models.split(","):
            tsr, _ = tool.compile(model, config)
            s, _ = tool.run(model, tsr, "--timing-only")
            acc = [l for l in s["layers"] if l["where"] == "accelerator"]
            worst = max(acc, key=lambda l: abs(error(l)))
            largest = f"{100 * abs(error(worst)):.2f}% ({worst['node']})" if error(worst) else "0 (every layer exact)"
            summary.append(f"| {model} | {os.path.basename(config)} | {len(acc)} | "
                           f"{sum(l['cycles'] for l in acc):,} | {sum(l['predicted_cycles'] for l in acc):,} | "
                           f"{largest} |")
            if config == args.configs.split(",")[0]:
                for l in acc:
                    rows.append(f"| {model} | {l['node']} | {l['op']} | {l['cycles']:,} | {l['predicted_cycles']:,} | "
                                f"{100 * error(l):+.2f}% | {l['bound']} | {100 * l['roofline_cycles'] / l['cycles']:.0f}% |")
    print("| model | config | accelerator layers | simulated cycles | predicted | largest layer error |")
    print("|---|---|---:|---:|---:|---|")
    print("\n".join(summary))
    print(f"\nEvery layer on `{os.path.basename(args.configs.split(',')[0])}`:\n")
    print("| model | layer | op | simulated | predicted | error | bound | attained |")
    print("|---|---|---|---:|---:|---:|---|---:|")
    print("\n".join(rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--config", default="configs/default.json")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cost-model", action="store_true")
    ap.add_argument("--models", default="resnet18,mobilenet_v2,digits")
    ap.add_argument("--configs", default="configs/default.json,configs/pynq-z1.json,configs/large.json,"
                    "configs/tiny.json")
    args = ap.parse_args()
    tool = Tool(args.build)
    if args.cost_model:
        cost_model(tool, args)
    else:
        figures(tool, args)


if __name__ == "__main__":
    sys.exit(main())
