"""Writes qadd.onnx into argv[1]: ONNX Runtime's QOperator form of a residual
block: QuantizeLinear -> QLinearConv a (3x3, pad 1) -> QLinearConv b (1x1) ->
com.microsoft QLinearAdd(a, b) -> DequantizeLinear. int8 activations with zero
point 0 (quantize_static with symmetric activations), or with argv[2] == "u8"
uint8 ones with zero points (the default); with argv[2] == "tie" int8 ones with
s_a = s_b = 0.5 and s_c = 1, so about half the sums land exactly on .5 (ties).
Also x.npy, exact.npy (the unrounded sum at C's scale) and onnx_ref.npy, the
output under the ONNX float formulas computed in NumPy (what ONNX Runtime's
scalar fallback computes; its SIMD QLinearAdd uses 22-bit fixed-point
multipliers, MlasCalcQLinearAddParameters, and may differ by 1 LSB): QLinearConv
y = saturate(round_half_even(acc * s_x * s_w / s_y) + z_y) with acc exact, and
QLinearAdd c = saturate(round_half_even((s_a (a - z_a) + s_b (b - z_b)) / s_c) + z_c)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

u8, tie = sys.argv[2:] == ["u8"], sys.argv[2:] == ["tie"]
rs = np.random.RandomState(9)
f32 = np.float32
at, lo, hi = (np.uint8, 0, 255) if u8 else (np.int8, -128, 127)
zp = lambda v: np.array(v if u8 else 0, at)
c = {
    "xs": np.array(f32(0.02)), "xz": zp(120),
    "w1": rs.randint(-127, 128, (16, 8, 3, 3)).astype(np.int8), "w1s": rs.uniform(0.002, 0.01, 16).astype(f32),
    "w1z": np.zeros(16, np.int8), "as": np.array(f32(0.5 if tie else 0.05)), "az": zp(20),
    "b1": rs.randint(-800, 800, 16).astype(np.int32),
    "w2": rs.randint(-127, 128, (16, 16, 1, 1)).astype(np.int8), "w2s": np.array(f32(0.004)),
    "w2z": np.array(0, np.int8), "bs": np.array(f32(0.5 if tie else 0.04)), "bz": zp(140),
    "cs": np.array(f32(1.0 if tie else 0.07)), "cz": zp(100),
}
nodes = [
    helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
    helper.make_node("QLinearConv", ["xq", "xs", "xz", "w1", "w1s", "w1z", "as", "az", "b1"], ["a"], pads=[1, 1, 1, 1]),
    helper.make_node("QLinearConv", ["a", "as", "az", "w2", "w2s", "w2z", "bs", "bz"], ["b"]),
    helper.make_node("QLinearAdd", ["a", "as", "az", "b", "bs", "bz", "cs", "cz"], ["c"], domain="com.microsoft"),
    helper.make_node("DequantizeLinear", ["c", "cs", "cz"], ["y"]),
]
graph = helper.make_graph(nodes, "qadd", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 8, 8])],
                          [numpy_helper.from_array(v, k) for k, v in c.items()])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(sys.argv[1], "qadd.onnx"))
x = rs.uniform(-2, 2, (1, 8, 8, 8)).astype(f32)
np.save(os.path.join(sys.argv[1], "x.npy"), x)

i64 = lambda v: v.astype(np.int64)
requant = lambda acc, scale, z: np.clip(np.round(acc.astype(f32) * scale.astype(f32)) + int(z), lo, hi)
xq = np.clip(np.round(x / c["xs"]) + int(c["xz"]), lo, hi)
xp = np.pad(i64(xq) - int(c["xz"]), ((0, 0), (0, 0), (1, 1), (1, 1)))  # pads hold the zero point
win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
acc1 = np.einsum("nchwij,mcij->nmhw", win, i64(c["w1"])) + c["b1"][None, :, None, None]
a = requant(acc1, (c["xs"] * c["w1s"] / c["as"])[None, :, None, None], c["az"])
acc2 = np.einsum("nchw,mc->nmhw", i64(a) - int(c["az"]), i64(c["w2"][:, :, 0, 0]))
b = requant(acc2, c["as"] * c["w2s"] / c["bs"], c["bz"])
real = c["as"] * (a - int(c["az"])).astype(f32) + c["bs"] * (b - int(c["bz"])).astype(f32)
q = np.clip(np.round(real / c["cs"]) + int(c["cz"]), lo, hi)
np.save(os.path.join(sys.argv[1], "onnx_ref.npy"), ((q - int(c["cz"])) * c["cs"]).astype(f32))
np.save(os.path.join(sys.argv[1], "exact.npy"), (real / c["cs"]).astype(np.float64))
