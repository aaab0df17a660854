"""Writes u8qdq.onnx into argv[1]: a padded 3x3 convolution + ReLU in the QDQ
layout ONNX Runtime's quantize_static produces by default (uint8 activations
with non-zero zero points, int8 per-channel weights, int32 bias), with the
input zero point and scale behind Identity nodes as some exporters leave them.
Also x.npy and onnx_ref.npy: the model's output under ONNX QDQ semantics
(float conv of the dequantized operands, QuantizeLinear rounding half to even),
computed here in NumPy (onnxruntime is not installed; onnx 1.12 has no
onnx.reference). With argv[2] == "wz" the weights get non-zero zero points
(asymmetric weights, which the accelerator does not run)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rs = np.random.RandomState(3)
xs, ys = np.float32(0.02), np.float32(0.05)
ws = np.full(16, 0.01, np.float32)
consts = {
    "xs0": np.array(xs), "xz0": np.array(100, np.uint8), "ys": np.array(ys), "yz": np.array(3, np.uint8),
    "w": rs.randint(-127, 128, (16, 8, 3, 3)).astype(np.int8), "ws": ws, "wz": np.full(16, 5 if sys.argv[2:] == ["wz"] else 0, np.int8),
    "b": rs.randint(-500, 500, 16).astype(np.int32), "bs": (xs * ws).astype(np.float32),
    "bz": np.zeros(16, np.int32),
}
nodes = [
    helper.make_node("Identity", ["xs0"], ["xs"]),
    helper.make_node("Identity", ["xz0"], ["xz"]),
    helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
    helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
    helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
    helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bd"], axis=0),
    helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c"], ["r"]),
    helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq"]),
    helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
]
graph = helper.make_graph(nodes, "u8qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 8, 8])],
                          [numpy_helper.from_array(v, k) for k, v in consts.items()])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(sys.argv[1], "u8qdq.onnx"))
x = rs.uniform(-2, 2, (1, 8, 8, 8)).astype(np.float32)
np.save(os.path.join(sys.argv[1], "x.npy"), x)


def quantize(v, scale, zp):
    return np.clip(np.round(v / scale) + zp, 0, 255)  # np.round: half to even, as QuantizeLinear


xd = (quantize(x, xs, 100) - 100) * np.float64(xs)
wd = (consts["w"].astype(np.float64) - consts["wz"][:, None, None, None]) * ws.astype(np.float64)[:, None, None, None]
bd = consts["b"] * consts["bs"].astype(np.float64)
xp = np.pad(xd, ((0, 0), (0, 0), (1, 1), (1, 1)))  # Conv pads the dequantized (real) input with 0
win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # [1, 8, 8, 8, 3, 3]
conv = np.einsum("nchwij,mcij->nmhw", win, wd) + bd[None, :, None, None]
y = (quantize(np.maximum(conv, 0), ys, 3) - 3) * ys
np.save(os.path.join(sys.argv[1], "onnx_ref.npy"), y.astype(np.float32))
