"""Area model: Yosys synthesis fitted into a linear model over config
features, so a sweep does not run Yosys per point.

    rows = [synthesize_config(cfg, rtl_files, top) for cfg in training]   # Yosys per config
    model = fit(training, rows)                                            # least squares per metric
    model["heldout"] = heldout_error(model, heldout, [synthesize_config(c, ...) for c in heldout])
    save(model, "area_model.json"); estimate(cfg, model)                   # {"area_cells": ..., "area_luts": ...}

`synthesize` runs Yosys on Verilog files: the generic `synth` (a cell count
of Yosys's internal gate library) or an FPGA flow (`synth_ice40`,
`synth_xilinx`: LUTs, flip-flops, block RAMs, DSPs by cell type).
`synthesize_config` gives the RTL a config through the header
`tessera isa verilog -c CONFIG` generates. The model's features are exact
functions of the config (MACs, datapath and memory bits, queue entries); its
coefficients are the fit's, its error the held-out configs'.
See docs/exploration.md for what has been fitted.
"""

import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

from tessera.errors import TesseraError
from tessera.yosys_stat import parse_stat_json  # noqa: F401  (part of this module's API)

# Cell-type prefixes of each FPGA resource (Yosys's iCE40 and Xilinx libraries).
RESOURCES = {
    "luts": ("SB_LUT4", "LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"),
    "lutrams": ("RAM16X", "RAM32", "RAM64", "RAM128X", "RAM256X", "SRL16", "SRLC"),  # distributed RAM, shift regs
    "ffs": ("SB_DFF", "FD"),
    "brams": ("SB_RAM40_4K", "RAMB18", "RAMB36"),
    "dsps": ("SB_MAC16", "DSP48"),
}
FLOWS = {"generic": "synth", "ice40": "synth_ice40", "xilinx": "synth_xilinx"}
WEIGHTS = {"RAMB36": 2}  # block RAMs are counted in 18 Kb (RAMB18) units


def count_resources(cell_types):
    """{"luts", "lutrams", "ffs", "brams", "dsps"} from an FPGA flow's cell counts by type."""
    def weight(t):
        return next((w for p, w in WEIGHTS.items() if t.startswith(p)), 1)
    return {res: sum(n * weight(t) for t, n in cell_types.items() if t.startswith(prefixes))
            for res, prefixes in RESOURCES.items()}


def features(cfg):
    """The model's inputs: exact functions of a config (a Config or its params())."""
    p = cfg.params() if hasattr(cfg, "params") else cfg
    batch, bi, bo = p["gemm.batch"], p["gemm.block_in"], p["gemm.block_out"]
    return {
        "const": 1.0,
        "macs": batch * bi * bo,                                   # the multiplier array
        "acc_lane_bits": batch * bo * p["datatypes.acc_bits"],     # adders, accumulator and ALU lanes
        "sram_bits": 8.0 * sum(p[f"scratchpads.{m}_bytes"] for m in ("inp", "wgt", "acc", "uop")),
        "bus_bits": 8.0 * p["dram.bytes_per_cycle"],               # memory port datapath
        "queue_entries": 4 * p["queues.command_depth"] + p["queues.fetch_buffer"] + 4 * p["queues.token_depth"],
    }


def _yosys():
    y = shutil.which("yosys")
    if not y:
        raise TesseraError("Yosys is not installed (Debian package 'yosys')", "failed precondition")
    return y


def synthesize(verilog, top, *, flow="generic", params=None, include_dirs=(), nice=0):
    """Synthesizes ``top`` from Verilog files with Yosys; returns {"cells",
    "luts", "lutrams", "ffs", "brams", "dsps" (FPGA flows), "cell_types",
    "cpu_s" (Yosys's CPU seconds)}. ``nice`` lowers Yosys's priority."""
    if flow not in FLOWS:
        raise ValueError(f"flow '{flow}': expected one of {sorted(FLOWS)}")
    with tempfile.TemporaryDirectory() as tmp:
        stat = os.path.join(tmp, "stat.json")
        incs = " ".join(f"-I{d}" for d in include_dirs)
        cmds = [f"read_verilog -sv {incs} {f}" for f in verilog]
        cmds += [f"chparam -set {k} {v} {top}" for k, v in (params or {}).items()]
        cmds += [f"{FLOWS[flow]} -top {top}", f"tee -q -o {stat} stat -json"]
        argv = [_yosys(), "-q", "-p", "; ".join(cmds)]
        if nice:
            argv = ["nice", "-n", str(nice)] + argv
        log = os.path.join(tmp, "yosys.log")
        with open(log, "w") as f:
            proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)  # reaps it, with its CPU time
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            with open(log) as f:
                raise TesseraError(f"yosys failed on {top}: {f.read().strip()[-2000:]}", "internal")
        with open(stat) as f:
            design = parse_stat_json(f.read())["design"]
    types = design.get("num_cells_by_type", {})
    out = {"cells": design["num_cells"], "cell_types": types}
    out["cpu_s"] = round(usage.ru_utime + usage.ru_stime, 1)
    if flow != "generic":
        out.update(count_resources(types))
    return out


def synthesize_config(cfg, verilog, top, *, header="tessera_cfg.vh", flow="generic", tessera_cli=None, nice=0):
    """Synthesizes the RTL for a config: `tessera isa verilog -c CONFIG`
    writes the header the RTL includes, then Yosys runs as in synthesize()."""
    cli = tessera_cli or shutil.which("tessera") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools", "tessera")
    with tempfile.TemporaryDirectory() as tmp:
        cfg_path = os.path.join(tmp, "config.json")
        with open(cfg_path, "w") as f:
            f.write(cfg.to_json())
        subprocess.run([cli, "isa", "verilog", "-c", cfg_path, "-o", os.path.join(tmp, header)], check=True,
                       capture_output=True)
        return synthesize(verilog, top, flow=flow, include_dirs=[tmp], nice=nice)


def fit(configs, rows, metrics=None, feature_names=None):
    """Least squares, per metric, of synthesis results on config features.
    ``configs`` are Configs or params() dicts; ``rows`` synthesize() results."""
    metrics = metrics or [m for m in ("cells", *RESOURCES) if m in rows[0]]
    names = feature_names or list(features(configs[0]))
    x = np.array([[features(c)[n] for n in names] for c in configs], dtype=float)
    scale = np.abs(x).max(axis=0)
    scale[scale == 0] = 1
    model = {"features": names, "coefficients": {}, "training_points": len(configs)}
    for m in metrics:
        y = np.array([r[m] for r in rows], dtype=float)
        coef, *_ = np.linalg.lstsq(x / scale, y, rcond=None)
        model["coefficients"][m] = [float(c) for c in coef / scale]
    return model


def predict(model, cfg):
    f = features(cfg)
    return {m: max(0.0, sum(c * f[n] for c, n in zip(coef, model["features"])))
            for m, coef in model["coefficients"].items()}


def heldout_error(model, configs, rows):
    """Per metric: the mean and largest relative error on configs not fitted."""
    out = {}
    for m in model["coefficients"]:
        errs = [abs(predict(model, c)[m] - r[m]) / max(r[m], 1) for c, r in zip(configs, rows)]
        out[m] = {"mean": float(np.mean(errs)), "max": float(np.max(errs)), "points": len(errs)}
    return out


def save(model, path):
    with open(path, "w") as f:
        json.dump(model, f, indent=2)


MODEL_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "area_model.json")


def load(path=MODEL_FILE):
    """The fitted model, or None when none has been fitted (no RTL yet)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def estimate(cfg, model=None):
    """{"area_<metric>": value} for a config from the fitted model; None
    without one."""
    model = model or load()
    if model is None:
        return None
    return {f"area_{m}": v for m, v in predict(model, cfg).items()}
