"""Fitting the committed area model (python/tessera/area_model.json) from a
spec, and checking that it is for the current RTL.

    python -m tessera area fit tools/area/fit.yaml     # Yosys per config, fit, held-out error, write
    python -m tessera area check tools/area/fit.yaml   # exit 1 when the RTL changed since the fit

The spec names a base config, the RTL folder (its sources and top are read
from its CMakeLists.txt, the list lint and Yosys use), a Yosys flow, and the
training and held-out configs as changes to the base. Each synthesis is
cached under a key of (config, flow, RTL digest), so an interrupted fit
resumes. The model records where it came from: the spec, flow, Yosys version,
the SHA-256 of each RTL source, the ISA fingerprint and every point's
synthesis result next to the model's prediction.
"""

import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import subprocess
import time

from tessera import area
from tessera.config import Config


def load_spec(path):
    import yaml
    path = pathlib.Path(path).resolve()
    spec = yaml.safe_load(path.read_text())
    for key in ("base_config", "rtl", "flow", "output", "train", "heldout"):
        if key not in spec:
            raise ValueError(f"area spec {path}: missing '{key}'")
    spec["path"] = str(path)
    for key in ("base_config", "rtl", "output"):
        spec[key] = str((path.parent / spec[key]).resolve())
    return spec


def rtl_sources(rtl_dir):
    """(sources, top) as hw/rtl/CMakeLists.txt lists them."""
    text = (pathlib.Path(rtl_dir) / "CMakeLists.txt").read_text()
    block = re.search(r"set\(TESSERA_RTL_SOURCES\s+([^)]*)\)", text)
    top = re.search(r"set\(TESSERA_RTL_TOP\s+(\w+)\)", text)
    if not block or not top:
        raise ValueError(f"{rtl_dir}/CMakeLists.txt: no TESSERA_RTL_SOURCES or TESSERA_RTL_TOP")
    return [os.path.join(rtl_dir, f) for f in block.group(1).split()], top.group(1)


def rtl_hashes(sources):
    return {os.path.basename(f): hashlib.sha256(pathlib.Path(f).read_bytes()).hexdigest() for f in sources}


def _digest(hashes):
    return hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest()


def yosys_version():
    return subprocess.run([area._yosys(), "-V"], capture_output=True, text=True).stdout.strip()


def _point(spec, base, changes, sources, top, digest, cache_dir, nice, cli):
    cfg = base.with_changes(changes)
    ident = [json.loads(cfg.to_json())["gemm"], cfg.params(), spec["flow"], digest]
    key = hashlib.sha1(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
    cached = os.path.join(cache_dir, f"{key}.json")
    if os.path.exists(cached):
        with open(cached) as f:
            row = json.load(f)
        if spec["flow"] != "generic":
            row.update(area.count_resources(row["cell_types"]))
        return cfg, row
    t0 = time.time()
    row = area.synthesize_config(cfg, sources, top, flow=spec["flow"], tessera_cli=cli, nice=nice)
    row["wall_s"] = round(time.time() - t0, 1)
    os.makedirs(cache_dir, exist_ok=True)
    with open(cached + ".tmp", "w") as f:
        json.dump(row, f)
    os.replace(cached + ".tmp", cached)
    return cfg, row


def fit_spec(spec, *, cache_dir, jobs=1, nice=19, tessera_cli=None, progress=print):
    """Synthesizes every point (cached), fits on `train`, measures `heldout`;
    returns the model (not yet saved)."""
    sources, top = rtl_sources(spec["rtl"])
    hashes = rtl_hashes(sources)
    base = Config.load(spec["base_config"])
    runs = [("train", c or {}) for c in spec["train"]] + [("heldout", c or {}) for c in spec["heldout"]]
    results = [None] * len(runs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = {pool.submit(_point, spec, base, ch, sources, top, _digest(hashes), cache_dir, nice, tessera_cli): i
                for i, (_, ch) in enumerate(runs)}
        for fut in concurrent.futures.as_completed(futs):
            i = futs[fut]
            results[i] = fut.result()
            progress(f"{runs[i][0]} {json.dumps(runs[i][1])}: {_summary(results[i][1])}")
    train = [r for (s, _), r in zip(runs, results) if s == "train"]
    held = [r for (s, _), r in zip(runs, results) if s == "heldout"]
    model = area.fit([c for c, _ in train], [r for _, r in train], feature_names=spec.get("features"))
    model["heldout"] = area.heldout_error(model, [c for c, _ in held], [r for _, r in held])
    root = os.path.commonpath([spec["path"], spec["rtl"], spec["base_config"]])
    model["provenance"] = {
        "command": f"python -m tessera area fit {os.path.relpath(spec['path'], root)}",
        "spec": os.path.relpath(spec["path"], root),
        "base_config": os.path.relpath(spec["base_config"], root),
        "flow": f"{spec['flow']} ({area.FLOWS[spec['flow']]})",
        "yosys": yosys_version(),
        "top": top,
        "rtl_sha256": hashes,
        "isa_fingerprint": f"{base.isa_fingerprint:016x}",
    }
    model["points"] = [{"set": s, "changes": ch, "features": area.features(c),
                        "synthesis": {k: v for k, v in r.items() if k != "cell_types"},
                        "predicted": {k: round(v, 1) for k, v in area.predict(model, c).items()}}
                       for (s, ch), (c, r) in zip(runs, results)]
    return model


def _summary(row):
    keys = [k for k in ("cells", *area.RESOURCES, "cpu_s", "wall_s") if k in row]
    return ", ".join(f"{k} {row[k]}" for k in keys)


def staleness(model, spec):
    """Why the model is not for the current RTL and ISA (empty: it is)."""
    why = []
    sources, _ = rtl_sources(spec["rtl"])
    now = rtl_hashes(sources)
    was = model["provenance"]["rtl_sha256"]
    changed = sorted(f for f in set(now) | set(was) if now.get(f) != was.get(f))
    if changed:
        why.append("RTL changed since the fit: " + ", ".join(changed))
    fp = f"{Config.load(spec['base_config']).isa_fingerprint:016x}"
    if fp != model["provenance"]["isa_fingerprint"]:
        why.append(f"ISA fingerprint {fp}, the model's {model['provenance']['isa_fingerprint']}")
    return why
