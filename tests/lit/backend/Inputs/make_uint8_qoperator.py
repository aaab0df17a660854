"""Writes u8qop.onnx into argv[1]: ONNX Runtime's QOperator form with uint8
activations: QuantizeLinear -> QLinearConv (3x3, pad 1, input zero point
100, output zero point 3) -> QLinearConv (3x3, stride 2, pad 1, int8
per-channel weights) -> QLinearMatMul (flattened, per-tensor weights) ->
DequantizeLinear. Also x.npy and onnx_ref.npy, the output under ONNX
QLinearConv/QLinearMatMul semantics computed in NumPy:
y = saturate(round_half_even(acc * s_x * s_w / s_y) + z_y), acc exact.
With argv[2] == "wz" the first QLinearConv's weights get zero point 4."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rs = np.random.RandomState(5)
f32 = np.float32
c = {
    "xs": np.array(f32(0.02)), "xz": np.array(100, np.uint8),
    "w1": rs.randint(-127, 128, (16, 4, 3, 3)).astype(np.int8), "w1s": np.array(f32(0.01)),
    "w1z": np.array(4 if sys.argv[2:] == ["wz"] else 0, np.int8), "y1s": np.array(f32(0.05)), "y1z": np.array(3, np.uint8),
    "b1": rs.randint(-800, 800, 16).astype(np.int32),
    "w2": rs.randint(-127, 128, (32, 16, 3, 3)).astype(np.int8), "w2s": rs.uniform(0.002, 0.01, 32).astype(f32),
    "w2z": np.zeros(32, np.int8), "y2s": np.array(f32(0.1)), "y2z": np.array(120, np.uint8),
    "b2": rs.randint(-2000, 2000, 32).astype(np.int32),
    "shape": np.array([1, 512], np.int64),
    "w3": rs.randint(-127, 128, (512, 10)).astype(np.int8), "w3s": np.array(f32(0.003)),
    "w3z": np.array(0, np.int8), "y3s": np.array(f32(1.0)), "y3z": np.array(128, np.uint8),
}
nodes = [
    helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
    helper.make_node("QLinearConv", ["xq", "xs", "xz", "w1", "w1s", "w1z", "y1s", "y1z", "b1"], ["y1"],
                     pads=[1, 1, 1, 1]),
    helper.make_node("QLinearConv", ["y1", "y1s", "y1z", "w2", "w2s", "w2z", "y2s", "y2z", "b2"], ["y2"],
                     pads=[1, 1, 1, 1], strides=[2, 2]),
    helper.make_node("Reshape", ["y2", "shape"], ["f"]),
    helper.make_node("QLinearMatMul", ["f", "y2s", "y2z", "w3", "w3s", "w3z", "y3s", "y3z"], ["y3"]),
    helper.make_node("DequantizeLinear", ["y3", "y3s", "y3z"], ["y"]),
]
graph = helper.make_graph(nodes, "u8qop", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                          [numpy_helper.from_array(v, k) for k, v in c.items()])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(sys.argv[1], "u8qop.onnx"))
x = rs.uniform(-2, 2, (1, 4, 8, 8)).astype(f32)
np.save(os.path.join(sys.argv[1], "x.npy"), x)


def requant(acc, scale, zp):  # float32 factor, as ONNX Runtime computes it
    return np.clip(np.round(acc.astype(f32) * scale.astype(f32)) + int(zp), 0, 255)


def qconv(q, zx, w, b, stride):
    xp = np.pad(q.astype(np.int64) - int(zx), ((0, 0), (0, 0), (1, 1), (1, 1)))  # pads hold the zero point
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("nchwij,mcij->nmhw", win, w.astype(np.int64)) + b[None, :, None, None]


xq = np.clip(np.round(x / c["xs"]) + 100, 0, 255)
y1 = requant(qconv(xq, 100, c["w1"].astype(np.int64) - c["w1z"], c["b1"], 1), c["xs"] * c["w1s"] / c["y1s"], 3)
y2 = requant(qconv(y1, 3, c["w2"], c["b2"], 2), (c["y1s"] * c["w2s"] / c["y2s"])[None, :, None, None], 120)
acc3 = (y2.reshape(1, 512).astype(np.int64) - 120) @ c["w3"].astype(np.int64)
y3 = requant(acc3, c["y2s"] * c["w3s"] / c["y3s"], 128)
np.save(os.path.join(sys.argv[1], "onnx_ref.npy"), ((y3 - 128) * c["y3s"]).astype(f32))
