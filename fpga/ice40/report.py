"""The iCE40 flow's report (fpga/ice40/Makefile): resources used out of the
UP5K's (nextpnr's utilization, Yosys' cell counts for LUTs and flip-flops)
and the achieved Fmax against the config's clock, as a Markdown table. Exits
1 after writing it when the design does not fit or misses the clock. When
nextpnr stopped (a design too big to place gets no report), the counts come
from its log's utilisation and its first error is quoted."""

import argparse
import json
import os
import re
import sys

# The iCE40UP5K's resources (Lattice DS1056): logic cells, flip-flops (one per
# cell), 4 Kbit block RAMs, 256 Kbit SPRAMs, MAC16 DSPs.
UP5K = {"LUT": 5280, "FF": 5280, "BRAM (EBR)": 30, "SPRAM": 4, "DSP": 8}
NEXTPNR = {"BRAM (EBR)": "ICESTORM_RAM", "SPRAM": "ICESTORM_SPRAM", "DSP": "ICESTORM_DSP"}


def yosys_cells(stat_text):
    cells = {}
    for m in re.finditer(r"^\s+(SB_\w+)\s+(\d+)\s*$", stat_text, re.M):
        cells[m.group(1)] = cells.get(m.group(1), 0) + int(m.group(2))
    return cells


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--stat", required=True)
    ap.add_argument("--nextpnr", required=True)
    ap.add_argument("--nextpnr-log")
    ap.add_argument("--bitstream", required=True)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    cfg = json.load(open(a.config))
    cells = yosys_cells(open(a.stat).read())
    stopped = None
    if os.path.exists(a.nextpnr):
        pnr = json.load(open(a.nextpnr))
        util = pnr["utilization"]
    else:  # nextpnr failed: its log's "Device utilisation" and first error
        log = open(a.nextpnr_log).read() if a.nextpnr_log and os.path.exists(a.nextpnr_log) else ""
        util = {m.group(1): {"used": int(m.group(2)), "available": int(m.group(3))}
                for m in re.finditer(r"(ICESTORM_\w+|SB_\w+):\s+(\d+)/\s*(\d+)", log)}
        err = re.search(r"^ERROR: (.*)$", log, re.M)
        stopped = err.group(1) if err else "nextpnr failed (no report)"
        pnr = {}
    used = {
        "LUT": cells.get("SB_LUT4", 0),
        "FF": sum(n for c, n in cells.items() if c.startswith("SB_DFF")),
    }
    for k, v in NEXTPNR.items():
        used[k] = util.get(v, {}).get("used", 0)
    lc = util.get("ICESTORM_LC", {})
    clock = float(cfg["clock_mhz"])
    fmax = min((c["achieved"] for c in pnr.get("fmax", {}).values()), default=0.0)
    rows = [(k, used[k], UP5K[k]) for k in UP5K]
    fits = (all(u <= cap for _, u, cap in rows) and lc.get("used", 0) <= lc.get("available", UP5K["LUT"])
            and stopped is None)
    meets = fmax >= clock
    built = (f"{os.path.getsize(a.bitstream)} byte bitstream" if os.path.exists(a.bitstream)
             else "no bitstream: nextpnr stopped")
    lines = [
        f"iCE40 UP5K (sg48) build of config `{cfg['name']}` ({built})",
        "",
        "| resource | used | available | share |",
        "|---|---|---|---|",
    ]
    lines += [f"| {k} | {u} | {cap} | {100.0 * u / cap:.1f}% |" for k, u, cap in rows]
    lines += [
        f"| logic cells (LUT+FF pairs, nextpnr) | {lc.get('used', 0)} | {lc.get('available', 0)} | "
        f"{100.0 * lc.get('used', 0) / max(1, lc.get('available', 1)):.1f}% |",
        "",
        f"Fmax {fmax:.2f} MHz against the config's clock of {clock:g} MHz: "
        f"{'met' if meets else 'NOT MET'}; {'fits' if fits else 'DOES NOT FIT'}.",
    ]
    if stopped:
        lines += ["", f"nextpnr stopped: `{stopped}`"]
    text = "\n".join(lines) + "\n"
    open(a.output, "w").write(text)
    sys.stdout.write(text)
    if not (fits and meets):
        sys.exit(1)


if __name__ == "__main__":
    main()
