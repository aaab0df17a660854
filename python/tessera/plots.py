"""Plots of sweep records (matplotlib, PNG and SVG): the sweep's scatter
with its Pareto front, a per-layer roofline of one point, and per-layer
utilization with the compute module's stall breakdown."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tessera.pareto import pareto_front  # noqa: E402

STALLS = ("busy", "wait_token", "wait_queue", "wait_memory")


def _save(fig, path):
    """Writes path.png and path.svg; returns both paths."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    out = []
    for ext in ("png", "svg"):
        fig.savefig(f"{path}.{ext}", dpi=120, bbox_inches="tight")
        out.append(f"{path}.{ext}")
    plt.close(fig)
    return out


def scatter(records, objectives, path, x=None, y=None, color=None):
    """Valid points on (x, y) (default: the first two objectives) coloured by
    `color` (default: the third), the front over all objectives ringed."""
    ok = [r for r in records if r.get("status") == "ok"]
    keys = [o.partition(":")[0] for o in objectives]
    x, y = x or keys[0], y or keys[1]
    color = color or (keys[2] if len(keys) > 2 else None)
    front = set(pareto_front(ok, objectives))
    fig, ax = plt.subplots(figsize=(7, 5))
    sc = ax.scatter([r[x] for r in ok], [r[y] for r in ok], c=[r[color] for r in ok] if color else None,
                    cmap="viridis", s=36, zorder=2)
    if color:
        fig.colorbar(sc, ax=ax, label=color)
    fx = [ok[i] for i in sorted(front, key=lambda i: ok[i][x])]
    ax.scatter([r[x] for r in fx], [r[y] for r in fx], s=140, facecolors="none", edgecolors="red", linewidths=1.5,
               zorder=3, label=f"Pareto front over {', '.join(objectives)} ({len(fx)})")
    invalid = len(records) - len(ok)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"{len(ok)} valid points" + (f" ({invalid} invalid, not shown)" if invalid else ""))
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    return _save(fig, path)


def _accel_layers(record, model):
    return [layer for layer in record["layers"][model] if layer.get("where") == "accelerator"]


def roofline(record, model, path):
    """Each accelerator layer at (MACs per DRAM byte, MACs per cycle) under the
    point's compute roof (MACs per cycle) and bandwidth roof (bytes per cycle)."""
    peak, bw = record["macs_per_cycle"], record["dram_bytes_per_cycle"]
    fig, ax = plt.subplots(figsize=(7, 5))
    xs = []
    for layer in _accel_layers(record, model):
        traffic = layer["dram_read_bytes"] + layer["dram_write_bytes"]
        if not layer["useful_macs"] or not traffic:
            continue
        oi, perf = layer["useful_macs"] / traffic, layer["useful_macs"] / layer["cycles"]
        xs.append(oi)
        ax.scatter(oi, perf, s=30, zorder=3)
        ax.annotate(f"{layer['node']} ({layer['bound']})", (oi, perf), fontsize=7, xytext=(4, 2),
                    textcoords="offset points")
    lo, hi = min(xs + [peak / bw]) / 4, max(xs + [peak / bw]) * 4
    ridge = peak / bw
    ax.plot([lo, ridge, hi], [lo * bw, peak, peak], color="black", lw=1.2, label="roof")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operational intensity (useful MACs per DRAM byte)")
    ax.set_ylabel("attained MACs per cycle")
    ax.set_title(f"{model} at point {record['point']}: peak {peak} MACs/cycle, {bw} bytes/cycle")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="lower right", fontsize=8)
    return _save(fig, path)


def layer_breakdown(record, model, path):
    """Per accelerator layer: the compute module's cycles split into busy and
    stalls (waiting for a token, the queue, memory), and GEMM utilization."""
    layers = _accel_layers(record, model)
    names = [f"{layer['node']}\n{layer['op']}" for layer in layers]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(max(6, len(layers) * 0.9), 7), sharex=True)
    bottom = [0.0] * len(layers)
    for s in STALLS:
        frac = [layer["compute"][s] / layer["cycles"] if layer["cycles"] else 0 for layer in layers]
        ax.bar(names, frac, bottom=bottom, label=s)
        bottom = [b + f for b, f in zip(bottom, frac)]
    ax.set_ylabel("compute module: share of layer cycles")
    ax.legend(fontsize=8, ncol=4, loc="upper center", bbox_to_anchor=(0.5, 1.18))
    ax2.bar(names, [layer["gemm_utilization"] for layer in layers], color="tab:gray")
    ax2.set_ylabel("GEMM utilization")
    ax2.set_ylim(0, 1)
    ax2.tick_params(axis="x", labelrotation=60, labelsize=7)
    fig.suptitle(f"{model} at point {record['point']}", y=1.02)
    return _save(fig, path)


def sweep_plots(records, objectives, out_dir, point=None):
    """The three plots for a sweep: the scatter with its front, and for one
    front point (default: the lowest first objective) each model's roofline
    and layer breakdown. Returns the files written."""
    files = scatter(records, objectives, os.path.join(out_dir, "pareto"))
    ok = [r for r in records if r.get("status") == "ok"]
    if not ok:
        return files
    key = objectives[0].partition(":")[0]
    rec = next((r for r in ok if r["point"] == point), None) or min(ok, key=lambda r: r[key])
    for model in rec["layers"]:
        files += roofline(rec, model, os.path.join(out_dir, f"roofline_{model}_p{rec['point']}"))
        files += layer_breakdown(rec, model, os.path.join(out_dir, f"layers_{model}_p{rec['point']}"))
    return files
