"""`python -m tessera sweep SPEC` (also `tessera sweep SPEC`): runs a sweep
on Dask and writes results.jsonl, results.csv, pareto.csv and, with --plots,
the plots. `python -m tessera area fit|check SPEC`: fits the area model
from Yosys runs, or checks it is for the current RTL. See docs/exploration.md."""

import argparse
import os
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tessera", description="Tessera's Python tools")
    sub = ap.add_subparsers(dest="command", required=True)
    sw = sub.add_parser("sweep", help="run an architecture sweep on Dask (docs/exploration.md)")
    sw.add_argument("spec", help="sweep spec (.json, .yaml)")
    sw.add_argument("-o", "--out", help="output folder (default: sweeps/<spec name>)")
    sw.add_argument("--scheduler", help="address of a Dask scheduler (tcp://host:8786); default: a local cluster")
    sw.add_argument("--workers", type=int, default=0, help="local cluster workers (default: one per core)")
    sw.add_argument("--no-resume", action="store_true", help="rerun every point (default: skip finished ones)")
    sw.add_argument("--plots", action="store_true", help="write the scatter with its front and per-layer plots")
    sw.add_argument("--point", type=int, help="the point of the per-layer plots (default: the best first objective)")
    ar = sub.add_parser("area", help="fit the area model from synthesis, or check it (docs/exploration.md)")
    ar.add_argument("action", choices=("fit", "check"))
    ar.add_argument("spec", help="area spec (.yaml), e.g. tools/area/fit.yaml")
    ar.add_argument("-o", "--out", help="model file (default: the spec's output)")
    ar.add_argument("--cache", default="build/area-cache", help="synthesis results, reused (default: %(default)s)")
    ar.add_argument("--jobs", type=int, default=1, help="Yosys runs at a time (default: 1)")
    ar.add_argument("--nice", type=int, default=19, help="Yosys's niceness (default: 19)")
    args = ap.parse_args(argv)
    if args.command == "area":
        return _area(args)

    from tessera import plots, sweep
    from tessera.errors import TesseraError
    try:
        spec = sweep.load_spec(args.spec)
        out = args.out or os.path.join("sweeps", spec["name"])
        records = sweep.run(spec, out, scheduler=args.scheduler, workers=args.workers or None,
                            resume=not args.no_resume, progress=lambda s: print(s, flush=True))
    except (OSError, ValueError, TesseraError) as e:
        print(f"tessera: error: {e}", file=sys.stderr)
        return 1
    for r in records:
        if r["status"] != "ok":
            print(f"point {r['point']} {r['status']}: {r['reason']}")
    print(f"results: {out}/results.csv, {out}/results.jsonl; front: {out}/pareto.csv")
    if args.plots:
        files = plots.sweep_plots(records, spec["objectives"], os.path.join(out, "plots"), args.point)
        print("plots: " + ", ".join(f for f in files if f.endswith(".png")))
    return 0


def _area(args):
    from tessera import area, area_fit
    spec = area_fit.load_spec(args.spec)
    out = args.out or spec["output"]
    if args.action == "check":
        model = area.load(out)
        why = ["no model: " + out] if model is None else area_fit.staleness(model, spec)
        for w in why:
            print(f"area model {out}: {w}; refit: python -m tessera area fit {args.spec}")
        return 1 if why else 0
    model = area_fit.fit_spec(spec, cache_dir=args.cache, jobs=args.jobs, nice=args.nice,
                              progress=lambda s: print(s, flush=True))
    area.save(model, out)
    for m, e in model["heldout"].items():
        print(f"{m}: held-out error mean {e['mean']:.1%}, max {e['max']:.1%} ({e['points']} configs)")
    print(f"model: {out} ({model['training_points']} training configs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
