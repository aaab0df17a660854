"""`python -m tessera sweep SPEC` (also `tessera sweep SPEC`): runs a sweep
on Dask and writes results.jsonl, results.csv, pareto.csv and, with --plots,
the plots. See docs/exploration.md."""

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
    args = ap.parse_args(argv)

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


if __name__ == "__main__":
    sys.exit(main())
