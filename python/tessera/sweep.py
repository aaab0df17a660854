"""Architecture sweeps: a spec names a base config, the parameters to vary,
the models and the objectives; every point of the grid is evaluated (config
validated, each model compiled and run on a target) on a Dask cluster, and
the records go to JSON lines (appended as points finish, so a rerun resumes)
and CSV. See docs/exploration.md.

    spec = tessera.sweep.load_spec("examples/sweeps/demo.yaml")
    records = tessera.sweep.run(spec, "out/demo", workers=2)   # local cluster
    records = tessera.sweep.run(spec, "out/demo", scheduler="tcp://host:8786")
"""

import csv
import hashlib
import itertools
import json
import os
import pathlib
import time

import numpy as np

from tessera import area as area_model
from tessera import energy
from tessera.config import Config, check_keys
from tessera.errors import TesseraError
from tessera.model import compile as compile_model
from tessera.model import import_model
from tessera.pareto import pareto_front

METRICS = ("cycles", "latency_us", "gemm_utilization", "dram_bytes", "energy_uj", "compile_s", "run_s")


# --- the spec ---------------------------------------------------------------

def _default_models_dir():
    """<build>/models when the package runs from <build>/python/tessera."""
    d = pathlib.Path(__file__).resolve().parents[2] / "models"
    return str(d) if d.is_dir() else ""


def load_spec(path):
    """Reads a spec (JSON, or YAML by extension) and resolves its paths:
    relative to the spec's folder, ${VAR} from the environment
    (TESSERA_MODELS_DIR defaults to the build tree's models)."""
    path = pathlib.Path(path)
    text = path.read_text()
    if path.suffix in (".yaml", ".yml"):
        import yaml
        spec = yaml.safe_load(text)
    else:
        spec = json.loads(text)
    return resolve_spec(spec, path.parent)


def resolve_spec(spec, base_dir="."):
    env = dict(os.environ)
    env.setdefault("TESSERA_MODELS_DIR", _default_models_dir())

    def resolve(p):
        for k, v in env.items():
            p = p.replace("${" + k + "}", os.path.abspath(v) if v else v)
        if "${" in p:
            raise ValueError(f"spec path '{p}': unset variable")
        return os.path.normpath(os.path.join(base_dir, p))

    spec = json.loads(json.dumps(spec))  # a private copy
    for key in ("base_config", "models", "parameters"):
        if key not in spec:
            raise ValueError(f"sweep spec: missing '{key}'")
    spec["base_config"] = resolve(spec["base_config"])
    for m in spec["models"]:
        for k in ("onnx", "calib", "input"):
            if m.get(k):
                m[k] = resolve(m[k])
        if "name" not in m or "onnx" not in m:
            raise ValueError(f"sweep spec: model {m}: needs 'name' and 'onnx'")
        for k in ("onnx", "calib", "input"):
            if m.get(k) and not os.path.exists(m[k]):
                raise ValueError(f"sweep spec: model '{m['name']}': {k} file {m[k]} does not exist")
    spec.setdefault("name", "sweep")
    spec.setdefault("target", "sim")
    spec.setdefault("options", {})
    spec.setdefault("objectives", ["latency_us", "energy_uj", "sram_kib"])
    try:
        check_keys(swept_keys(spec), "sweep spec: parameters")
    except TesseraError as e:
        raise ValueError(str(e)) from None
    return spec


def points(spec):
    """The grid: one dict of config changes per point, in spec order. A
    parameter maps a dotted key to its values, or an axis name to a list of
    change sets applied together (e.g. a GEMM shape with its scratchpads)."""
    axes = []
    for name, values in spec["parameters"].items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"sweep spec: parameter '{name}': expected a non-empty list of values")
        axes.append([dict(v) if isinstance(v, dict) else {name: v} for v in values])
    out = []
    for combo in itertools.product(*axes):
        changes = {}
        for c in combo:
            changes.update(c)
        out.append(changes)
    return out


def swept_keys(spec):
    """Every config key some point changes (each record carries their values)."""
    keys = []
    for name, values in spec["parameters"].items():
        for v in values:
            for k in (v if isinstance(v, dict) else {name: v}):
                if k not in keys:
                    keys.append(k)
    return keys


def point_key(changes):
    """A stable id of a point (resuming matches on it)."""
    return hashlib.sha1(json.dumps(changes, sort_keys=True).encode()).hexdigest()[:12]


# --- one point (runs on a worker) -------------------------------------------

_GRAPHS = {}  # per worker process: (onnx, calib) -> imported int8 Graph
_INPUTS = {}


def _graph(m):
    key = (m["onnx"], m.get("calib"))
    if key not in _GRAPHS:
        calib = np.load(m["calib"]) if m.get("calib") else None
        _GRAPHS[key] = import_model(m["onnx"], calib)
    return _GRAPHS[key]


def _inputs(m, graph):
    key = (m["onnx"], m.get("input"), m.get("batches", 1))
    if key not in _INPUTS:
        n = int(m.get("batches", 1))
        if m.get("input"):
            xs = [np.load(m["input"])]
        else:  # cycles do not depend on the data: zeros of the input types
            xs = [np.zeros(i["shape"], dtype=np.float32 if i["dtype"] == "f32" else np.int8) for i in graph.inputs]
        _INPUTS[key] = [x[:n * i["shape"][0]] for x, i in zip(xs, graph.inputs)]
    return _INPUTS[key]


def _config_features(cfg):
    p = cfg.params()
    sram = sum(p[f"scratchpads.{m}_bytes"] for m in ("inp", "wgt", "acc", "uop"))
    return {"macs_per_cycle": cfg.macs_per_cycle, "dram_bytes_per_cycle": p["dram.bytes_per_cycle"],
            "sram_kib": sram / 1024, "clock_mhz": cfg.clock_mhz}


def _layers(result):
    keep = ("node", "op", "where", "cycles", "gemm_utilization", "bound", "roofline", "roofline_cycles",
            "dram_read_bytes", "dram_write_bytes", "useful_macs", "fetch", "load", "compute", "store")
    return [{k: layer[k] for k in keep if k in layer} for layer in result.layers]


def evaluate(changes, spec, index=0):
    """One point: its record (status "ok", "invalid" with the reason, or
    "error" for a failure that is not the config's fault)."""
    rec = {"point": index, "key": point_key(changes), "status": "ok", "reason": ""}
    rec.update(changes)
    try:
        cfg = Config.load(spec["base_config"]).with_changes(changes, name=f"{spec['name']}-{index}")
    except TesseraError as e:
        rec.update(status="invalid", reason=str(e))
        return rec
    params = cfg.params()
    rec.update({k: params[k] for k in swept_keys(spec)})
    rec.update(_config_features(cfg))
    area = area_model.estimate(cfg)
    if area is not None:
        rec.update(area)
    totals = dict.fromkeys(("cycles", "latency_us", "dram_bytes", "energy_uj", "compile_s", "run_s"), 0)
    utils, per_layer = [], {}
    for m in spec["models"]:
        name = m["name"]
        try:
            graph = _graph(m)
            t0 = time.perf_counter()
            model = compile_model(graph, cfg, name=name)
            compile_s = time.perf_counter() - t0
        except TesseraError as e:
            rec.update(status="invalid", reason=f"model '{name}': {e}")
            return rec
        steps = model.steps()
        accel = [s for s in steps if s["kind"] == "ACCEL"]
        if not accel:
            why = next((s["reason"] for s in steps if s["reason"]), "")
            rec.update(status="invalid", reason=f"model '{name}': no layer runs on the accelerator ({why})")
            return rec
        try:
            t0 = time.perf_counter()
            r = model.run(_inputs(m, graph), target=spec["target"], **spec["options"])
            run_s = time.perf_counter() - t0
        except TesseraError as e:
            rec.update(status="error", reason=f"model '{name}': {e}")
            return rec
        # Timing-only runs skip data movement: their DRAM and event counts are
        # not the program's, so traffic and energy are left out.
        timing_only = bool(spec["options"].get("timing_only"))
        e = None if timing_only else energy.estimate(r.counters, cfg, r.batches)
        bounds = {}
        for layer in r.layers:
            if "bound" in layer:
                bounds[layer["bound"]] = bounds.get(layer["bound"], 0) + 1
        vals = {"cycles": r.cycles // max(r.batches, 1), "latency_us": r.latency_us,
                "gemm_utilization": r.gemm_utilization,
                "dram_bytes": None if timing_only else (r.dram_read_bytes + r.dram_write_bytes) // max(r.batches, 1),
                "energy_uj": None if timing_only else e["total_uj"], "compile_s": compile_s, "run_s": run_s}
        for k, v in vals.items():
            rec[f"{name}.{k}"] = v
        rec[f"{name}.accel_layers"] = len(accel)
        rec[f"{name}.cpu_layers"] = sum(1 for s in steps if s["kind"] == "CPU")
        rec[f"{name}.bounds"] = " ".join(f"{b}:{n}" for b, n in sorted(bounds.items()))
        for k in totals:
            totals[k] = None if totals[k] is None or vals[k] is None else totals[k] + vals[k]
        utils.append(r.gemm_utilization)
        per_layer[name] = _layers(r)
    rec.update(totals)
    rec["gemm_utilization"] = sum(utils) / len(utils)
    rec["layers"] = per_layer
    return rec


# --- the sweep ----------------------------------------------------------------

def read_records(path):
    """Records of a JSON-lines file (a torn last line from an interrupted run is skipped)."""
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return out


def write_csv(records, path):
    """Scalar fields only (per-layer data stays in the JSON lines), one row per point."""
    cols = []
    for r in records:
        for k, v in r.items():
            if k not in cols and not isinstance(v, (dict, list)):
                cols.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in records:
            w.writerow(r)


def _client(scheduler, workers):
    from distributed import Client, LocalCluster
    if scheduler:
        return Client(scheduler), None
    cluster = LocalCluster(n_workers=workers or os.cpu_count(), threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster), cluster


def run(spec, out_dir, *, scheduler=None, workers=None, client=None, resume=True, progress=None):
    """Evaluates every point not already in ``out_dir/results.jsonl`` on Dask
    (``client``, else a ``scheduler`` address, else a local cluster of
    ``workers`` processes), appending records as they finish; then writes
    ``results.csv`` and ``pareto.csv`` (the front over ``spec["objectives"]``
    among valid points). Returns every record, in point order."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "results.jsonl"
    if not resume and jsonl.exists():
        jsonl.unlink()
    grid = points(spec)
    done = {r["key"]: r for r in read_records(jsonl) if r.get("status") in ("ok", "invalid")}
    todo = [(i, c) for i, c in enumerate(grid) if point_key(c) not in done]
    if progress:
        progress(f"{spec['name']}: {len(grid)} points, {len(grid) - len(todo)} already done, {len(todo)} to run")
    own_client = own_cluster = None
    t0 = time.perf_counter()
    if todo:
        from distributed import as_completed
        if client is None:
            client, own_cluster = _client(scheduler, workers)
            own_client = client
        try:
            futures = {client.submit(evaluate, c, spec, i, pure=False): (i, c) for i, c in todo}
            with open(jsonl, "a") as f:
                for n, fut in enumerate(as_completed(futures), 1):
                    try:
                        rec = fut.result()
                    except Exception as e:  # a worker lost or a bug: the point is recorded, not the sweep lost
                        i, c = futures[fut]
                        rec = {"point": i, "key": point_key(c), "status": "error", "reason": repr(e), **c}
                    f.write(json.dumps(rec) + "\n")
                    f.flush()
                    done[rec["key"]] = rec
                    if progress:
                        progress(f"[{n}/{len(todo)}] point {rec['point']}: {rec['status']}"
                                 + (f" ({rec['reason'][:100]})" if rec["reason"] else ""))
        finally:  # close what this call opened (never a cluster it was pointed at)
            if own_client is not None:
                own_client.close()
            if own_cluster is not None:
                own_cluster.close()
    elapsed = time.perf_counter() - t0
    records = sorted(done.values(), key=lambda r: r["point"])
    records = [r for r in records if r["key"] in {point_key(c) for c in grid}]
    write_csv(records, out / "results.csv")
    ok = [r for r in records if r["status"] == "ok"]
    front = [ok[i] for i in pareto_front(ok, spec["objectives"])]
    write_csv(front, out / "pareto.csv")
    if progress and todo:
        progress(f"{len(todo)} points in {elapsed:.1f} s ({len(todo) / elapsed:.2f} points/s); "
                 f"{len(ok)} valid, {len(front)} on the front over {spec['objectives']}")
    return records
