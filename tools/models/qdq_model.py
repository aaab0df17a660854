#!/usr/bin/env python3
"""Rewrites a float ONNX CNN into the QDQ model ONNX Runtime's quantize_static
writes with its defaults (onnxruntime is not installed here, so this script
does it): QuantFormat.QDQ, uint8 activations with MinMax-calibrated scale and
zero point, int8 symmetric weights (per tensor; --per-channel: axis 0), int32
biases at scale s_x * s_w.

Like quantize_static after ORT's pre-processing (quant_pre_process): shape
arithmetic of the static input shape (Shape -> Gather -> ... -> Reshape's
shape, Slice's bounds) is folded into initializers and BatchNormalization
into the preceding Conv (ORT's graph optimizer), and a Relu after a Conv/Gemm/Add it alone reads
is removed (its clamp is the uint8 quantization of the producer's output,
whose range starts at 0); data movement (MaxPool, Flatten, Reshape,
Transpose, Slice, Split, Squeeze, Unsqueeze) reuses its input's parameters
(ORT's QDQDirect8BitOp), Concat gets its own calibrated ones, ReduceMean stays
float; every quantized activation T becomes T -> QuantizeLinear ->
DequantizeLinear -> consumers; weights are int8 initializers read through
DequantizeLinear. Calibration runs the float model on --calib with the small
NumPy interpreter of qdq_numpy.py (Conv, BatchNormalization, Relu, Clip, Add, MaxPool,
GlobalAveragePool, ReduceMean, Flatten, Gemm, Softmax, Reshape, Transpose,
Slice, Split, Concat, ... in KERNELS) in batches of the model's input batch
size (quantize_static feeds what the input declares), which also evaluates the written
QDQ model (--ref-out: ONNX QDQ semantics, QuantizeLinear rounding half to
even) for comparison with Tessera.

Usage: /usr/bin/python3 tools/models/qdq_model.py --model M.onnx --calib C.npy --out Q.onnx
           [--per-channel] [--input X.npy --ref-out Y.npy]
"""
import argparse

import numpy as np
import onnx
from onnx import helper, numpy_helper

from qdq_numpy import attrs, input_shape, run

SAME_PARAMS_OPS = {"MaxPool", "Flatten", "Reshape", "Transpose", "Slice", "Split", "Squeeze", "Unsqueeze"}
QUANTIZED_OPS = {"Conv", "Gemm", "Add", "GlobalAveragePool", "Concat"} | SAME_PARAMS_OPS


def fold_shapes(model):
    """Constant-folds what does not depend on the input's values (Shape of a
    static shape and the arithmetic on it) into initializers, as ORT's
    pre-processing does for a static input shape (none for a symbolic one)."""
    g = model.graph
    if 0 in input_shape(model):  # a symbolic dimension: ORT folds nothing either
        return
    env = {}
    run(model, np.zeros(input_shape(model)), env=env)
    static = {i.name for i in g.initializer}
    keep = []
    for n in g.node:
        if n.op_type in ("Shape", "Constant") or all(v in static for v in n.input if v):
            static.update(n.output)
            continue
        keep.append(n)
    used = {v for n in keep for v in n.input}
    inits = {i.name for i in g.initializer}
    for v in sorted(used & static - inits):
        val = np.asarray(env[v])
        g.initializer.append(numpy_helper.from_array(val.astype(np.float32) if val.dtype == np.float64 else val, v))
    del g.node[:]
    g.node.extend(keep)


def fold_bn(model):
    """Conv+BN -> Conv (ONNX Runtime's graph optimizer does it before quantizing)."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    users = {}
    for n in g.node:
        for v in n.input:
            users.setdefault(v, []).append(n)
    producer = {o: n for n in g.node for o in n.output}
    keep, rename = [], {}
    for n in g.node:
        src = producer.get(n.input[0]) if n.input else None
        if n.op_type == "BatchNormalization" and src is not None and src.op_type == "Conv" and \
                len(users[n.input[0]]) == 1:
            s, b, mean, var = (numpy_helper.to_array(inits[v]).astype(np.float64) for v in n.input[1:5])
            sc = s / np.sqrt(var + attrs(n).get("epsilon", 1e-5))
            w = numpy_helper.to_array(inits[src.input[1]]).astype(np.float64)
            cb = numpy_helper.to_array(inits[src.input[2]]).astype(np.float64) if len(src.input) > 2 else 0
            inits[src.input[1]].CopyFrom(numpy_helper.from_array((w * sc[:, None, None, None]).astype(np.float32),
                                                                 src.input[1]))
            bias = ((cb - mean) * sc + b).astype(np.float32)
            bname = src.output[0] + "_bias"
            g.initializer.append(numpy_helper.from_array(bias, bname))
            inits[bname] = g.initializer[-1]
            if len(src.input) > 2:
                src.input[2] = bname
            else:
                src.input.append(bname)
            rename[n.output[0]] = src.output[0]
            continue
        keep.append(n)
    for n in keep:
        for k, v in enumerate(n.input):
            n.input[k] = rename.get(v, v)
    for o in g.output:
        o.name = rename.get(o.name, o.name)
    del g.node[:]
    g.node.extend(keep)


def remove_relu(model):
    """Relu after a Conv/Gemm/Add it alone reads -> removed: the producer writes
    the Relu's output, whose calibrated range starts at 0 (uint8 zero point 0)."""
    g = model.graph
    users, producer = {}, {o: n for n in g.node for o in n.output}
    for n in g.node:
        for v in n.input:
            users.setdefault(v, []).append(n)
    outputs = {o.name for o in g.output}
    keep = []
    for n in g.node:
        src = producer.get(n.input[0]) if n.input else None
        if n.op_type == "Relu" and src is not None and src.op_type in ("Conv", "Gemm", "Add") and \
                len(users[n.input[0]]) == 1 and n.input[0] not in outputs:
            src.output[0] = n.output[0]
            continue
        keep.append(n)
    del g.node[:]
    g.node.extend(keep)


def scale_zp_u8(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    s = np.float32((hi - lo) / 255.0)
    if s < np.finfo(np.float32).tiny:
        s = np.float32(1.0)
    return s, np.uint8(np.clip(np.round(0 - lo / np.float64(s)), 0, 255))


def quantize_weights(w, per_channel):
    axes = tuple(range(1, w.ndim)) if per_channel else None
    amax = np.abs(w).max(axis=axes) if per_channel else np.abs(w).max()
    s = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    sb = s.reshape([-1] + [1] * (w.ndim - 1)) if per_channel else s
    return np.clip(np.round(w / sb), -127, 127).astype(np.int8), s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--calib", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-channel", action="store_true")
    ap.add_argument("--input")
    ap.add_argument("--ref-out")
    o = ap.parse_args()
    model = onnx.load(o.model)
    fold_shapes(model)
    fold_bn(model)
    g = model.graph
    # Calibration: global min/max of every tensor.
    ranges = {}

    def observe(name, v):
        lo, hi = float(v.min()), float(v.max())
        old = ranges.get(name, (lo, hi))
        ranges[name] = (min(old[0], lo), max(old[1], hi))

    calib = np.load(o.calib).astype(np.float32)
    batch = input_shape(model)[0] or 8
    for k in range(0, len(calib), batch):
        observe(g.input[0].name, calib[k:k + batch])
        run(model, calib[k:k + batch], observe)
    remove_relu(model)  # after calibration, as quantize_static does

    inits = {i.name: i for i in g.initializer}
    producer = {out: n for n in g.node for out in n.output}
    params = {}  # activation -> (scale, zero point)
    for n in g.node:  # in order, so a SAME_PARAMS op's input has its parameters already
        if n.op_type not in QUANTIZED_OPS:
            continue
        for v in n.input[:1] if n.op_type in ("Conv", "Gemm") else n.input:
            if v not in inits and v not in params:
                params[v] = scale_zp_u8(*ranges[v])
        for out in n.output:
            params[out] = params[n.input[0]] if n.op_type in SAME_PARAMS_OPS else scale_zp_u8(*ranges[out])
    new_inits, nodes = [], []
    dq_name = {}

    def qdq(v, after_nodes):
        s, z = params[v]
        base = v.replace("/", "_").strip("_")
        sn, zn = base + "_scale", base + "_zero_point"
        new_inits.extend([numpy_helper.from_array(np.array(s, np.float32), sn),
                          numpy_helper.from_array(np.array(z, np.uint8), zn)])
        after_nodes.append(helper.make_node("QuantizeLinear", [v, sn, zn], [v + "_QuantizeLinear_Output"]))
        after_nodes.append(helper.make_node("DequantizeLinear", [v + "_QuantizeLinear_Output", sn, zn],
                                            [v + "_DequantizeLinear_Output"]))
        dq_name[v] = v + "_DequantizeLinear_Output"

    outputs = {out.name for out in g.output}
    pre = []
    if g.input[0].name in params:
        qdq(g.input[0].name, pre)
    nodes.extend(pre)
    for n in g.node:
        if n.op_type in ("Conv", "Gemm"):
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            trans = n.op_type == "Gemm" and attrs(n).get("transB", 0)
            wq, ws = quantize_weights(w if n.op_type == "Conv" or trans else w.T, o.per_channel)
            if n.op_type == "Gemm" and not trans:
                wq = wq.T
            wn = n.input[1] + "_quantized"
            new_inits += [numpy_helper.from_array(wq, wn), numpy_helper.from_array(ws, wn + "_scale"),
                          numpy_helper.from_array(np.zeros(ws.shape, np.int8), wn + "_zero_point")]
            axis = {"axis": 0 if n.op_type == "Conv" or trans else 1} if o.per_channel else {}
            nodes.append(helper.make_node("DequantizeLinear", [wn, wn + "_scale", wn + "_zero_point"],
                                          [n.input[1] + "_DequantizeLinear_Output"], **axis))
            ins = [dq_name[n.input[0]], n.input[1] + "_DequantizeLinear_Output"]
            if len(n.input) > 2:
                b = numpy_helper.to_array(inits[n.input[2]]).astype(np.float64)
                bs = (params[n.input[0]][0] * ws).astype(np.float32)
                bq = np.round(b / bs.astype(np.float64)).astype(np.int32)
                bn = n.input[2] + "_quantized"
                new_inits += [numpy_helper.from_array(bq, bn), numpy_helper.from_array(bs, bn + "_scale"),
                              numpy_helper.from_array(np.zeros(bs.shape, np.int32), bn + "_zero_point")]
                nodes.append(helper.make_node("DequantizeLinear", [bn, bn + "_scale", bn + "_zero_point"],
                                              [n.input[2] + "_DequantizeLinear_Output"], **({"axis": 0} if
                                                                                            o.per_channel else {})))
                ins.append(n.input[2] + "_DequantizeLinear_Output")
            n.input[:] = ins
        else:
            n.input[:] = [dq_name.get(v, v) if n.op_type in QUANTIZED_OPS else v for v in n.input]
        post = []
        for k, out in enumerate(n.output):
            if out not in params:
                continue
            if out in outputs:  # the graph output keeps its name: producer -> Q -> DQ -> name
                n.output[k] = out + "_pre_quant"
                params[n.output[k]] = params[out]
                qdq(n.output[k], post)
                post[-1].output[0] = out
            else:
                qdq(out, post)
        nodes.append(n)
        nodes.extend(post)
    # Float consumers of quantized activations (e.g. Softmax) read the dequantized values.
    for n in nodes:
        if n.op_type not in QUANTIZED_OPS and n.op_type not in ("QuantizeLinear", "DequantizeLinear"):
            n.input[:] = [dq_name.get(v, v) for v in n.input]
    used = {v for n in nodes for v in n.input}
    keep_inits = [i for i in g.initializer if i.name in used]
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(keep_inits + new_inits)
    onnx.checker.check_model(model)
    onnx.save(model, o.out)
    if o.input:
        x = np.load(o.input).astype(np.float32)
        np.save(o.ref_out, run(model, x)[0].astype(np.float32))
    print(f"{o.out}: {sum(n.op_type == 'QuantizeLinear' for n in nodes)} QuantizeLinear, "
          f"{sum(n.op_type == 'DequantizeLinear' for n in nodes)} DequantizeLinear")


if __name__ == "__main__":
    main()
