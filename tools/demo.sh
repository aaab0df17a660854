#!/usr/bin/env bash
# `make demo`: Tessera's main job on a bundled default. The digits CNN (trained
# at build time on scikit-learn's 8x8 digits, tools/models/digits_cnn.py) is
# quantized to int8, compiled for the default accelerator config, and its
# 450-image test split runs on the cycle-accurate simulator. Prints int8
# accuracy on the accelerator beside fp32 on the CPU, cycles and utilization.
set -euo pipefail
BUILD=${1:-build}
T="$BUILD/tools/tessera"
PY=/usr/bin/python3
M="$BUILD/models/digits"
OUT="$BUILD/demo"
CFG=configs/default.json
mkdir -p "$OUT"

echo "== Tessera demo: the digits CNN on the simulated accelerator ($CFG)"
"$T" config show "$CFG" | sed -n '1,4p'
echo
echo "-- compile: ONNX -> int8 (calibrated on 200 training images) -> accelerator program"
"$T" compile "$M/model.onnx" -c "$CFG" --calib "$M/calib.npy" -o "$OUT/digits.tsr"
"$T" inspect "$OUT/digits.tsr" | cut -c1-150
echo
echo "-- run the test split (450 images) on the cycle-accurate simulator"
"$T" run "$OUT/digits.tsr" --target sim --input "$M/test_x.npy" --output "$OUT/probs_sim.npy" \
  --stats-json "$OUT/stats.json" --trace "$OUT/trace.json" | cut -c1-150
echo
echo "-- the same artifact on the int8 CPU reference (golden model), and fp32 on the CPU, for comparison"
"$T" run "$OUT/digits.tsr" --target cpu --input "$M/test_x.npy" --output "$OUT/probs_golden.npy" >/dev/null
"$T" run "$M/model.onnx" --target cpu --input "$M/test_x.npy" --output "$OUT/probs_fp32.npy" >/dev/null
"$PY" - "$OUT" "$M" <<'PYEOF'
import json, sys
import numpy as np
out, m = sys.argv[1], sys.argv[2]
labels = np.load(f"{m}/test_y.npy")
sim, golden = np.load(f"{out}/probs_sim.npy"), np.load(f"{out}/probs_golden.npy")
same = int(sum(np.array_equal(a, b) for a, b in zip(sim, golden)))
print(f"verified: {same}/{len(sim)} outputs of the simulated accelerator are bit-identical to the int8 CPU reference")
if same != len(sim):
    sys.exit("demo FAILED: the accelerator and the reference disagree")
int8 = (sim.argmax(1) == labels).mean()
fp32 = (np.load(f"{out}/probs_fp32.npy").argmax(1) == labels).mean()
s = json.load(open(f"{out}/stats.json"))
n = s["batches"]
print(f"accuracy on {len(labels)} test images: int8 on the accelerator {int8:.4f}, fp32 on the CPU {fp32:.4f}")
print(f"accelerator: {s['cycles'] // n} cycles per image ({s['cycles'] / n / 100e3:.3f} ms at 100 MHz), "
      f"GEMM utilization {100 * s['gemm_utilization']:.1f}%, "
      f"DRAM {(s['dram_read_bytes'] + s['dram_write_bytes']) // n} bytes per image")
print(f"stats: {out}/stats.json; trace (open in https://ui.perfetto.dev): {out}/trace.json")
PYEOF
