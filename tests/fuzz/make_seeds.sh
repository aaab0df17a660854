#!/usr/bin/env bash
# Seeds for the fuzz harnesses that are build products (tests/fuzz/CMakeLists.txt):
# program objects and DRAM images of the example programs, compiled models.
# Usage: make_seeds.sh TESSERA_BINARY MODELS_DIR OUT_DIR   (from the source root)
set -euo pipefail
tessera=$1 models=$2 out=$3
mkdir -p "$out/bin" "$out/dram" "$out/tsr"
for s in examples/programs/*.s; do
  n=$(basename "$s" .s)
  "$tessera" asm "$s" -c configs/default.json -o "$out/bin/$n.bin"
done
"$tessera" exec examples/programs/gemm_small.s -c configs/default.json --dram-out "$out/dram/gemm_small.dram" >/dev/null
"$tessera" exec examples/programs/eltwise_add.s -c configs/default.json --dram-out "$out/dram/eltwise_add.dram" >/dev/null
"$tessera" compile "$models/digits_mlp/model.onnx" -c configs/default.json --calib "$models/digits_mlp/calib.npy" \
  -o "$out/tsr/digits_mlp.tsr" >/dev/null
"$tessera" compile "$models/digits/model.onnx" -c configs/default.json --calib "$models/digits/calib.npy" \
  -o "$out/tsr/digits.tsr" >/dev/null
"$tessera" compile tests/lit/backend/Inputs/self-add.tir -c configs/default.json -o "$out/tsr/self_add.tsr" >/dev/null
"$tessera" compile tests/lit/compiler/fold-qdq.tir -c configs/default.json --cpu-fallback -o "$out/tsr/fold_qdq.tsr" \
  >/dev/null
echo "seeds in $out: $(find "$out" -type f | wc -l) files"
