"""The Zynq-7020 resource report (fpga/zynq/Makefile): Yosys synth_xilinx
cell counts of the accelerator against the xc7z020's capacity, as a
Markdown table. Exits 1 after writing it when the design does not fit."""

import argparse
import importlib.util
import json
import os
import sys

# xc7z020 (Xilinx DS190): 53,200 LUTs (17,400 of them usable as memory),
# 106,400 flip-flops, 140 BRAM36 (each two BRAM18), 220 DSP48E1.
XC7Z020 = {"LUT": 53200, "LUTRAM": 17400, "FF": 106400, "BRAM36 (BRAM18 = 1/2)": 140, "DSP48E1": 220}
# LUTs each distributed-RAM primitive takes.
LUTRAM = {"RAM32M": 4, "RAM64M": 4, "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4, "RAM256X1S": 4,
          "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "SRL16E": 1, "SRLC32E": 1}


def load_stat(path):
    """python/tessera/yosys_stat.py, loaded by path (the tessera package needs its compiled module)."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "yosys_stat", os.path.join(here, "..", "..", "python", "tessera", "yosys_stat.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.parse_stat_json(open(path).read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--stat", required=True)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    cfg = json.load(open(a.config))
    stat = load_stat(a.stat)
    cells = stat["design"]["num_cells_by_type"] if "design" in stat else {}
    luts = sum(n for c, n in cells.items() if c.startswith("LUT"))
    lutram = sum(n * LUTRAM[c] for c, n in cells.items() if c in LUTRAM)
    ffs = sum(n for c, n in cells.items() if c in ("FDRE", "FDSE", "FDCE", "FDPE"))
    b36, b18 = cells.get("RAMB36E1", 0), cells.get("RAMB18E1", 0)
    dsps = cells.get("DSP48E1", 0)
    used = {"LUT": luts + lutram, "LUTRAM": lutram, "FF": ffs, "BRAM36 (BRAM18 = 1/2)": b36 + b18 / 2.0,
            "DSP48E1": dsps}
    fits = all(used[k] <= cap for k, cap in XC7Z020.items())
    lines = [
        f"xc7z020 synthesis (Yosys synth_xilinx, before placement) of config `{cfg['name']}` "
        f"at {cfg['clock_mhz']} MHz: {b36} RAMB36E1 + {b18} RAMB18E1",
        "",
        "| resource | used | available | share |",
        "|---|---|---|---|",
    ]
    for k, cap in XC7Z020.items():
        u = used[k]
        lines.append(f"| {k} | {u:g} | {cap} | {100.0 * u / cap:.1f}% |")
    lines += ["", "fits" if fits else "DOES NOT FIT"]
    text = "\n".join(lines) + "\n"
    open(a.output, "w").write(text)
    sys.stdout.write(text)
    if not fits:
        sys.exit(1)


if __name__ == "__main__":
    main()
