"""Sweeps: the grid, the Pareto front (against brute force), energy events,
and the bundled sweep on a local Dask cluster of several workers (results,
invalid points with reasons, resuming, plots)."""

import csv
import json
import random
import subprocess
import sys

import numpy as np
import pytest

import tessera
from tessera import energy, pareto, sweep


def brute_force_front(records, objectives):
    objs = pareto.parse_objectives(objectives)
    vec = [None if any(r.get(k) is None for k, _ in objs) else [s * r[k] for k, s in objs] for r in records]
    front = []
    for i, a in enumerate(vec):
        if a is None:
            continue
        if not any(b is not None and all(y <= x for x, y in zip(a, b)) and b != a for b in vec):
            front.append(i)
    return front


@pytest.mark.parametrize("seed", range(20))
def test_pareto_front_matches_brute_force(seed):
    rng = random.Random(seed)
    n, k = rng.randint(0, 60), rng.randint(1, 4)
    keys = [f"o{j}" for j in range(k)]
    objectives = [key + rng.choice(["", ":min", ":max"]) for key in keys]
    records = []
    for _ in range(n):  # few distinct values: ties and duplicate points
        r = {key: rng.randint(0, 5) for key in keys}
        if rng.random() < 0.1:
            del r[rng.choice(keys)]
        records.append(r)
    assert pareto.pareto_front(records, objectives) == brute_force_front(records, objectives)


def test_pareto_front_small_case():
    recs = [{"a": 1, "b": 5}, {"a": 2, "b": 2}, {"a": 3, "b": 3}, {"a": 5, "b": 1}, {"a": 2, "b": 2}]
    assert pareto.pareto_front(recs, ["a", "b"]) == [0, 1, 3, 4]
    assert pareto.pareto_front(recs, ["a:max", "b:max"]) == [0, 2, 3]
    with pytest.raises(ValueError):
        pareto.parse_objectives(["a:up"])


def test_grid_with_tied_axes():
    spec = {"parameters": {"gemm": [{"gemm.block_in": 8, "gemm.block_out": 8}, {"gemm.block_in": 16}],
                           "dram.latency_cycles": [1, 2, 3]}}
    pts = sweep.points(spec)
    assert len(pts) == 6
    assert pts[0] == {"gemm.block_in": 8, "gemm.block_out": 8, "dram.latency_cycles": 1}
    assert len({sweep.point_key(p) for p in pts}) == 6
    assert sweep.swept_keys(spec) == ["gemm.block_in", "gemm.block_out", "dram.latency_cycles"]
    with pytest.raises(ValueError, match="dram.latency_cycles"):
        sweep.points({"parameters": {"dram.latency_cycles": []}})


def test_energy_counts_events(default_cfg):
    c = {"gemm_iterations": 10, "alu_iterations": 4, "dram_read_bytes": 1000, "dram_write_bytes": 200,
         "load_bytes_by_mem": {"uop": 40, "wgt": 512, "inp": 64, "acc": 0, "out": 0, "acc8": 0}}
    ev = energy.events(c, default_cfg)
    assert ev["macs"] == 10 * 256
    assert ev["inp_bytes"] == 10 * 16 + 64 and ev["wgt_bytes"] == 10 * 256 + 512
    assert ev["acc_bytes"] == 2 * 14 * 64 + 200 and ev["dram_bytes"] == 1200
    e = energy.estimate(c, default_cfg)
    assert e["mac_uj"] == pytest.approx(2560 * 0.3e-6)
    assert e["dram_uj"] == pytest.approx(1200 * 1950 / 8 * 1e-6)
    assert e["total_uj"] == pytest.approx(e["mac_uj"] + e["sram_uj"] + e["dram_uj"])
    assert energy.sram_pj_per_byte(32768) == pytest.approx(20 / 8)  # the cited table's 32 KB figure


@pytest.fixture(scope="module")
def demo_sweep(root, tmp_path_factory):
    """The bundled sweep on a local cluster of 3 worker processes."""
    from distributed import Client, LocalCluster
    spec = sweep.load_spec(root / "examples" / "sweeps" / "demo.yaml")
    out = tmp_path_factory.mktemp("demo")
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        records = sweep.run(spec, out, client=client)
        yield spec, out, records, client


def test_bundled_sweep_results(demo_sweep):
    spec, out, records, _ = demo_sweep
    assert len(records) == 32 and [r["point"] for r in records] == list(range(32))
    ok = [r for r in records if r["status"] == "ok"]
    invalid = [r for r in records if r["status"] == "invalid"]
    assert len(ok) == 24 and len(invalid) == 8
    for r in invalid:  # block 8 with the default's scratchpad bytes: the encoding does not fit
        assert r["gemm.block_in"] == 8 and "bits, more than" in r["reason"]
    for r in ok:
        for m in ("digits", "digits_mlp"):
            assert r[f"{m}.cycles"] > 0 and r[f"{m}.energy_uj"] > 0 and r[f"{m}.accel_layers"] > 0
        assert r["latency_us"] == pytest.approx(r["digits.latency_us"] + r["digits_mlp.latency_us"])
    with open(out / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 32 and rows[0]["dram.latency_cycles"] == str(records[0]["dram.latency_cycles"])
    # The front written is the brute-force front over the valid points.
    with open(out / "pareto.csv") as f:
        front = sorted(int(r["point"]) for r in csv.DictReader(f))
    assert front == sorted(ok[i]["point"] for i in brute_force_front(ok, spec["objectives"]))
    assert 0 < len(front) < len(ok)
    # Every point carries the area model's estimate (python/tessera/area_model.json), a usable cost axis.
    assert all(r["area_luts"] > 0 and r["area_brams"] > 0 for r in ok)
    by_area = ["latency_us", "area_luts"]
    assert pareto.pareto_front(ok, by_area) == brute_force_front(ok, by_area)


def test_sweep_point_equals_a_direct_run(demo_sweep):
    spec, _, records, _ = demo_sweep
    r = next(r for r in records if r["status"] == "ok" and r["gemm.block_in"] == 16)
    changes = {k: r[k] for k in sweep.swept_keys(spec)}
    cfg = tessera.load_config(spec["base_config"]).with_changes(changes)
    m = spec["models"][0]
    model = tessera.compile(m["onnx"], cfg, calib=np.load(m["calib"]))
    res = model.run(np.load(m["input"])[:m["batches"]], target="sim")
    assert r["digits.cycles"] == res.cycles // m["batches"]
    assert r["digits.dram_bytes"] == (res.dram_read_bytes + res.dram_write_bytes) // m["batches"]


def test_sweep_resumes(demo_sweep):
    spec, out, records, client = demo_sweep
    again = sweep.run(spec, out, client=client)
    assert [json.dumps(r, sort_keys=True) for r in again] == [json.dumps(r, sort_keys=True) for r in records]
    # An interrupted run: the last three records lost, the line being written torn.
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:-3]) + "\n" + lines[-3][:20])
    log = []
    resumed = sweep.run(spec, out, client=client, progress=log.append)
    assert "29 already done, 3 to run" in log[0]
    strip = ("compile_s", "run_s")
    same = [{k: v for k, v in r.items() if not k.endswith(strip)} for r in resumed]
    want = [{k: v for k, v in r.items() if not k.endswith(strip)} for r in records]
    assert same == want


def test_sweep_plots(demo_sweep, tmp_path):
    from tessera import plots
    spec, _, records, _ = demo_sweep
    files = plots.sweep_plots(records, spec["objectives"], tmp_path)
    assert len(files) == 2 + 2 * 2 * 2  # the scatter, and per model a roofline and a breakdown, PNG + SVG
    for f in files:
        with open(f, "rb") as fh:
            head = fh.read(8)
        assert head.startswith(b"\x89PNG") if f.endswith(".png") else b"<?xml" in head or b"<svg" in head


def test_cli_reports_a_bad_spec(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "x", "models": [], "parameters": {}}))
    r = subprocess.run([sys.executable, "-m", "tessera", "sweep", str(bad)], capture_output=True, text=True)
    assert r.returncode == 1 and "base_config" in r.stderr


def test_spec_names_a_missing_model_file(root):
    spec = {"base_config": str(root / "configs" / "default.json"), "parameters": {"dram.latency_cycles": [8]},
            "models": [{"name": "m", "onnx": "/nonexistent/model.onnx"}]}
    with pytest.raises(ValueError, match="/nonexistent/model.onnx"):
        sweep.resolve_spec(spec)


def test_sweep_on_a_cluster_by_address(demo_sweep, tmp_path):
    """--scheduler tcp://...: the sweep connects to an existing cluster."""
    spec, _, records, client = demo_sweep
    small = dict(spec, parameters={"dram.latency_cycles": [16, 96]})
    got = sweep.run(small, tmp_path, scheduler=client.scheduler.address)
    assert [r["status"] for r in got] == ["ok", "ok"]
    assert got[0]["digits.cycles"] < got[1]["digits.cycles"]
    assert len(client.scheduler_info()["workers"]) == 3  # still up: an existing cluster is not closed


def test_spec_with_an_unknown_parameter_is_refused(root):
    spec = {"base_config": str(root / "configs" / "default.json"), "parameters": {"dram.latncy": [8]},
            "models": []}
    with pytest.raises(ValueError, match="dram.latncy"):
        sweep.resolve_spec(spec)
