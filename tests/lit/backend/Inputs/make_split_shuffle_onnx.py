"""Writes split.onnx (a float ShuffleNetV2-style block as torch exports it at
opset 13: 1x1 conv + ReLU to 8 channels, Split into halves of 4, 3x3 conv +
ReLU on the second, Concat, channel shuffle Reshape -> Transpose -> Reshape,
Slice of each half, a 1x1 conv + ReLU on the second, Concat, 1x1 head to 3
channels) with random weights, plus x.npy (the input) and calib.npy (4
calibration inputs) into argv[1]."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rs = np.random.RandomState(5)
inits = []


def const(name, v):
    inits.append(numpy_helper.from_array(np.asarray(v), name))
    return name


def weight(name, shape):
    return const(name, (rs.standard_normal(shape) * 0.4).astype(np.float32))


def ints(name, v):
    return const(name, np.array(v, np.int64))


N = helper.make_node
nodes = [
    N("Conv", ["x", weight("w1", (8, 4, 1, 1)), weight("b1", (8,))], ["c1"]),
    N("Relu", ["c1"], ["r1"]),
    N("Split", ["r1", ints("halves", [4, 4])], ["a", "b"], axis=1),
    N("Conv", ["b", weight("w2", (4, 4, 3, 3)), weight("b2", (4,))], ["c2"], pads=[1, 1, 1, 1]),
    N("Relu", ["c2"], ["r2"]),
    N("Concat", ["a", "r2"], ["cat"], axis=1),
    N("Reshape", ["cat", ints("s5", [1, 2, 4, 6, 6])], ["rs"]),
    N("Transpose", ["rs"], ["tr"], perm=[0, 2, 1, 3, 4]),
    N("Reshape", ["tr", ints("s4", [1, 8, 6, 6])], ["sh"]),
    N("Slice", ["sh", ints("z", [0]), ints("four", [4]), ints("ax", [1])], ["lo"]),
    N("Slice", ["sh", ints("four_", [4]), ints("eight", [8]), ints("ax_", [1])], ["hi"]),
    N("Conv", ["hi", weight("w3", (4, 4, 1, 1)), weight("b3", (4,))], ["c3"]),
    N("Relu", ["c3"], ["r3"]),
    N("Concat", ["lo", "r3"], ["cat2"], axis=1),
    N("Conv", ["cat2", weight("w4", (3, 8, 1, 1)), weight("b4", (3,))], ["y"]),
]
graph = helper.make_graph(nodes, "split_shuffle", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 6, 6])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(sys.argv[1], "split.onnx"))
np.save(os.path.join(sys.argv[1], "x.npy"), rs.standard_normal((1, 4, 6, 6)).astype(np.float32))
np.save(os.path.join(sys.argv[1], "calib.npy"), rs.standard_normal((4, 4, 6, 6)).astype(np.float32))
