"""Sweep throughput: points per second of a spec on local Dask clusters of
1, 2, ... workers (docs/performance.md). Each cluster runs the spec twice
with resume off: "cold" includes starting the cluster and each worker's
first import and quantization of the models; "warm" is the second pass.

    PYTHONPATH=build/python /usr/bin/python3 bench/sweep_bench.py [--spec examples/sweeps/demo.yaml] [--workers 1,2,4]
"""

import argparse
import os
import tempfile
import time

from distributed import Client, LocalCluster

from tessera import sweep


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ap.add_argument("--spec", default=os.path.join(root, "examples", "sweeps", "demo.yaml"))
    ap.add_argument("--workers", default="1,2,4")
    args = ap.parse_args()
    spec = sweep.load_spec(args.spec)
    n = len(sweep.points(spec))
    print(f"spec {spec['name']}: {n} points, models {[m['name'] for m in spec['models']]}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"{'workers':>7} {'cold pts/s':>10} {'warm pts/s':>10} {'warm s':>8}")
    for w in [int(x) for x in args.workers.split(",")]:
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            with LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
                    Client(c) as client:
                sweep.run(spec, out, client=client, resume=False)
                cold = time.perf_counter() - t0
                t1 = time.perf_counter()
                sweep.run(spec, out, client=client, resume=False)
                warm = time.perf_counter() - t1
        print(f"{w:>7} {n / cold:>10.2f} {n / warm:>10.2f} {warm:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
