"""A small NumPy interpreter of float and QDQ ONNX graphs for qdq_model.py:
one kernel per op type in KERNELS (QuantizeLinear rounds half to even), run()
evaluates a model in float64."""
import numpy as np
import onnx
from onnx import helper, numpy_helper


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def conv(x, w, b, a):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    g = a.get("group", 1)
    sh, sw = a.get("strides", [1, 1])
    pt, pl, pb, pr = a.get("pads", [0, 0, 0, 0])
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]
    oh, ow = win.shape[2], win.shape[3]
    out = np.empty((n, m, oh, ow), x.dtype)
    mg = m // g
    for gi in range(g):
        xs = win[:, gi * cg:(gi + 1) * cg]  # [n, cg, oh, ow, kh, kw]
        out[:, gi * mg:(gi + 1) * mg] = np.einsum("nchwij,mcij->nmhw", xs, w[gi * mg:(gi + 1) * mg], optimize=True)
    return out + (b[None, :, None, None] if b is not None else 0)


def max_pool(x, a):
    kh, kw = a["kernel_shape"]
    sh, sw = a.get("strides", [1, 1])
    pt, pl, pb, pr = a.get("pads", [0, 0, 0, 0])
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=-np.inf)
    return np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw].max(axis=(4, 5))


def quantize(x, s, z):
    lo, hi = (0, 255) if z.dtype == np.uint8 else (-128, 127)
    return np.clip(np.round(x / s) + z.astype(np.float64), lo, hi)  # half to even, as QuantizeLinear


def dequantize(q, s, z, axis):
    s, z = np.asarray(s, np.float64), np.asarray(z, np.float64)
    if s.ndim == 1 and q.ndim > 1:
        shape = [1] * q.ndim
        shape[axis] = -1
        s, z = s.reshape(shape), z.reshape(shape)
    return (q.astype(np.float64) - z) * s


def int_div(a, b):
    return (np.trunc(a / b) if np.issubdtype(np.asarray(a).dtype, np.integer) else a / b).astype(np.asarray(a).dtype)


def reshape(x, shape):
    shape = [x.shape[k] if d == 0 else int(d) for k, d in enumerate(shape)]  # 0 copies (allowzero 0)
    return x.reshape(shape)


def slice_(x, starts, ends, axes=None, steps=None):
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    idx = [slice(None)] * x.ndim
    for b, e, ax, st in zip(starts, ends, axes, steps):
        idx[int(ax)] = slice(int(b), int(e), int(st))
    return x[tuple(idx)]


def split(x, parts, axis, n):
    parts = [x.shape[axis] // n] * n if parts is None else parts
    return np.split(x, np.cumsum(parts)[:-1], axis=axis)


def axes_of(i, a):
    return [int(v) for v in (i[1] if len(i) > 1 and i[1] is not None else a.get("axes", []))]


def gemm(i, a):
    b = i[1].T if a.get("transB", 0) else i[1]
    return i[0] @ b + (i[2] if len(i) > 2 else 0)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# op type -> f(inputs, attributes, node) -> output (or list of outputs)
KERNELS = {
    "Conv": lambda i, a, n: conv(i[0], i[1], i[2] if len(i) > 2 else None, a),
    "BatchNormalization": lambda i, a, n: (i[0] - i[3][None, :, None, None]) * (
        i[1] / np.sqrt(i[4] + a.get("epsilon", 1e-5)))[None, :, None, None] + i[2][None, :, None, None],
    "Relu": lambda i, a, n: np.maximum(i[0], 0),
    "Clip": lambda i, a, n: np.clip(i[0], i[1] if len(i) > 1 and i[1] is not None else -np.inf,
                                    i[2] if len(i) > 2 and i[2] is not None else np.inf),
    "Add": lambda i, a, n: i[0] + i[1],
    "Mul": lambda i, a, n: i[0] * i[1],
    "Div": lambda i, a, n: int_div(i[0], i[1]),
    "MaxPool": lambda i, a, n: max_pool(i[0], a),
    "GlobalAveragePool": lambda i, a, n: i[0].mean(axis=(2, 3), keepdims=True),
    "ReduceMean": lambda i, a, n: i[0].mean(axis=tuple(axes_of(i, a)), keepdims=bool(a.get("keepdims", 1))),
    "Flatten": lambda i, a, n: i[0].reshape(int(np.prod(i[0].shape[:a.get("axis", 1)])), -1),
    "Gemm": lambda i, a, n: gemm(i, a),
    "Softmax": lambda i, a, n: softmax(i[0]),
    "Shape": lambda i, a, n: np.array(i[0].shape, np.int64),
    "Gather": lambda i, a, n: np.take(i[0], i[1], axis=a.get("axis", 0)),
    "Unsqueeze": lambda i, a, n: np.expand_dims(i[0], tuple(axes_of(i, a))),
    "Squeeze": lambda i, a, n: np.squeeze(i[0], tuple(axes_of(i, a)) or None),
    "Concat": lambda i, a, n: np.concatenate(i, axis=a["axis"]),
    "Reshape": lambda i, a, n: reshape(i[0], i[1]),
    "Transpose": lambda i, a, n: np.transpose(i[0], a.get("perm")),
    "Slice": lambda i, a, n: slice_(*i),
    "Split": lambda i, a, n: split(i[0], i[1] if len(i) > 1 else a.get("split"), a.get("axis", 0), len(n.output)),
    "QuantizeLinear": lambda i, a, n: quantize(i[0], i[1], i[2]).astype(i[2].dtype),
    "DequantizeLinear": lambda i, a, n: dequantize(i[0], i[1], i[2], a.get("axis", 1)),
    "Constant": lambda i, a, n: numpy_helper.to_array(a["value"]),
}


def run(model, x, observe=None, env=None):
    """Evaluates `model` on x (float64); observe(name, value) sees every tensor;
    env (if given) receives every value."""
    env = {} if env is None else env
    env.update({i.name: numpy_helper.to_array(i).astype(np.float64) if i.data_type == onnx.TensorProto.FLOAT
                else numpy_helper.to_array(i) for i in model.graph.initializer})
    env[model.graph.input[0].name] = x.astype(np.float64)
    for n in model.graph.node:
        if n.op_type not in KERNELS:
            raise SystemExit(f"qdq_model.py: no NumPy kernel for {n.op_type}")
        y = KERNELS[n.op_type]([env[v] if v else None for v in n.input], attrs(n), n)
        for name, v in zip(n.output, y if isinstance(y, list) else [y]):
            env[name] = v
            if observe:
                observe(name, v)
    return [env[o.name] for o in model.graph.output]


def input_shape(model):
    return [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
