"""Writes the small ONNX models and arrays the compiler lit tests use into DIR:
cnn.onnx (torch-exported conv-bn-relu-pool-fc with a symbolic batch) with
x.npy, ref.npy (torch's output), calib.npy, bad.npy (not numpy), wrong.npy
(wrong channel count); qdq.onnx (QuantizeLinear/DequantizeLinear around a
conv); qop.onnx (two QLinearConv: int8 zero point 0, and uint8 zero point 128);
junk.onnx (not a protobuf); lrn.onnx (an unsupported op).

Usage: python make_onnx.py DIR
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper


def cnn(d):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                            torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 5))
    with torch.no_grad():
        m[1].running_mean.uniform_(-0.2, 0.2)
        m[1].running_var.uniform_(0.5, 1.5)
    m.eval()
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 8, 8, generator=g)
    torch.onnx.export(m, x, os.path.join(d, "cnn.onnx"), opset_version=13, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=False)
    np.save(os.path.join(d, "x.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(d, "ref.npy"), m(x).numpy())
    np.save(os.path.join(d, "calib.npy"), torch.randn(8, 3, 8, 8, generator=g).numpy())
    np.save(os.path.join(d, "wrong.npy"), np.zeros((2, 4, 8, 8), np.float32))
    with open(os.path.join(d, "bad.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'")


def qdq(d):
    w = np.array([[[[2]], [[-1]]], [[[1]], [[3]]]], dtype=np.int8)  # [2,2,1,1]
    inits = [numpy_helper.from_array(np.array(0.5, np.float32), "xs"), numpy_helper.from_array(np.array(0, np.int8), "xz"),
             numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array([0.25, 0.125], np.float32), "ws"),
             numpy_helper.from_array(np.array([0, 0], np.int8), "wz"),
             numpy_helper.from_array(np.array(0.25, np.float32), "ys"), numpy_helper.from_array(np.array(0, np.int8), "yz")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="qx"),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dqx"),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], name="dqw", axis=0),
             helper.make_node("Conv", ["xd", "wd"], ["c"], name="conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq"], name="qy"),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dqy")]
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 2, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 2, 2])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(d, "qdq.onnx"))


def qop(d):
    def conv(name, x, dtype, zp, out):
        w = np.array([[[[2]], [[-1]]], [[[1]], [[3]]]], dtype=np.int8) if dtype == np.int8 else \
            np.array([[[[130]], [[127]]], [[[129]], [[131]]]], dtype=np.uint8)
        inits = [numpy_helper.from_array(np.array(0.5, np.float32), name + "_xs"),
                 numpy_helper.from_array(np.array(zp, dtype), name + "_xz"), numpy_helper.from_array(w, name + "_w"),
                 numpy_helper.from_array(np.array(0.25, np.float32), name + "_ws"),
                 numpy_helper.from_array(np.array(zp, dtype), name + "_wz"),
                 numpy_helper.from_array(np.array(0.5, np.float32), name + "_ys"),
                 numpy_helper.from_array(np.array(zp, dtype), name + "_yz")]
        n = helper.make_node("QLinearConv", [x, name + "_xs", name + "_xz", name + "_w", name + "_ws", name + "_wz",
                                             name + "_ys", name + "_yz"], [out], name=name)
        return n, inits
    n1, i1 = conv("sym", "a", np.int8, 0, "a_out")
    n2, i2 = conv("asym", "b", np.uint8, 128, "b_out")
    g = helper.make_graph([n1, n2], "qop", [helper.make_tensor_value_info("a", TensorProto.INT8, [1, 2, 2, 2]),
                                            helper.make_tensor_value_info("b", TensorProto.UINT8, [1, 2, 2, 2])],
                          [helper.make_tensor_value_info("a_out", TensorProto.INT8, [1, 2, 2, 2]),
                           helper.make_tensor_value_info("b_out", TensorProto.UINT8, [1, 2, 2, 2])], i1 + i2)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(d, "qop.onnx"))


def bad(d):
    with open(os.path.join(d, "junk.onnx"), "wb") as f:
        f.write(b"\x08\x96\x01\xff\xff\xff\x12 this is not a model")
    n = helper.make_node("LRN", ["x"], ["y"], name="norm1", size=3)
    g = helper.make_graph([n], "lrn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 2, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 2, 2])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(d, "lrn.onnx"))


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    cnn(d)
    qdq(d)
    qop(d)
    bad(d)


if __name__ == "__main__":
    main()
