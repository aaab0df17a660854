"""Energy per inference: an ESTIMATE from counted events.

Events come from the device's counters of a run (``Result.counters``) and
the config; each is priced with a per-event energy from one published table:

    M. Horowitz, "Computing's energy problem (and what we can do about it)",
    ISSCC 2014, Fig. 1.1.9 (45 nm, 0.9 V): 8-bit integer multiply 0.2 pJ,
    32-bit integer add 0.1 pJ; SRAM read of 64 bits from an 8 KB / 32 KB /
    1 MB array 10 / 20 / 100 pJ; DRAM access of 64 bits 1.3-2.6 nJ.

The SRAM figures follow E_64(size) = 10 pJ * sqrt(size / 8 KB) (20 pJ at
32 KB, 113 pJ at 1 MB against the table's 100), which prices each scratchpad
by its configured size; writes cost as much as reads. This is not a
power model of Tessera's RTL (none is synthesized with switching activity
here): it ranks configs by the traffic they cause, in a 45 nm ASIC's units.

Counted events per run:
  MACs            GEMM iterations x BATCH x BLOCK_IN x BLOCK_OUT (the array
                  works at full width whether or not lanes are useful)
  scratchpads     per GEMM iteration an input tile and a weight tile read, an
                  accumulator tile read and written, a uop read (4 bytes); per
                  ALU iteration an accumulator tile read and written and a uop
                  read; LOADs write the bytes they load into their scratchpad;
                  STOREs read the bytes they store
  DRAM            bytes read (instructions, uops, data) and written
"""

import math

SOURCE = ("M. Horowitz, \"Computing's energy problem (and what we can do about it)\", "
          "ISSCC 2014, Fig. 1.1.9 (45 nm)")
PJ_INT8_MULT = 0.2
PJ_INT32_ADD = 0.1
PJ_MAC = PJ_INT8_MULT + PJ_INT32_ADD  # int8 x int8 -> int32 accumulate
PJ_SRAM_64BIT_8KB = 10.0
PJ_DRAM_64BIT = (1.3e3 + 2.6e3) / 2  # the table's range, midpoint


def sram_pj_per_byte(size_bytes):
    """Energy of one byte read or written in an SRAM of ``size_bytes``."""
    return PJ_SRAM_64BIT_8KB * math.sqrt(max(size_bytes, 1) / 8192) / 8


def events(counters, cfg):
    """Counted events (MACs, bytes per scratchpad, DRAM bytes) of a run."""
    p = cfg.params() if hasattr(cfg, "params") else cfg
    batch, bi, bo = p["gemm.batch"], p["gemm.block_in"], p["gemm.block_out"]
    inp_tile = batch * bi * p["datatypes.inp_bits"] // 8
    wgt_tile = bo * bi * p["datatypes.wgt_bits"] // 8
    acc_tile = batch * bo * p["datatypes.acc_bits"] // 8
    g, a = counters["gemm_iterations"], counters["alu_iterations"]
    if g is None:
        raise ValueError("the config does not build the volume counters (counters.volumes 0): "
                         "no events to estimate energy from")
    loaded = counters["load_bytes_by_mem"]
    return {
        "macs": g * batch * bi * bo,
        "inp_bytes": g * inp_tile + loaded["inp"],
        "wgt_bytes": g * wgt_tile + loaded["wgt"],
        "acc_bytes": 2 * (g + a) * acc_tile + loaded["acc"] + loaded["acc8"] + counters["dram_write_bytes"],
        "uop_bytes": 4 * (g + a) + loaded["uop"],
        "dram_bytes": counters["dram_read_bytes"] + counters["dram_write_bytes"],
    }


def estimate(counters, cfg, batches=1):
    """Estimated energy per inference (per batch of the model), in microjoules,
    split by event: {"total_uj", "mac_uj", "sram_uj", "dram_uj"}."""
    p = cfg.params() if hasattr(cfg, "params") else cfg
    e = events(counters, p)
    sram = sum(e[f"{m}_bytes"] * sram_pj_per_byte(p[f"scratchpads.{m}_bytes"]) for m in ("inp", "wgt", "acc", "uop"))
    parts = {"mac_uj": e["macs"] * PJ_MAC, "sram_uj": sram, "dram_uj": e["dram_bytes"] * PJ_DRAM_64BIT / 8}
    n = max(batches, 1)
    out = {k: v / n * 1e-6 for k, v in parts.items()}
    out["total_uj"] = sum(out.values())
    return out
