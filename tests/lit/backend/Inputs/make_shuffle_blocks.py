"""Writes shuffle.tir (a float ShuffleNetV2-style network: a 1x1 stem to 48
channels, a stride-1 block that splits the channels in halves of 24 and runs
1x1 -> depthwise 3x3 -> 1x1 on the second, a stride-2 block with both
branches, each block ending in a channel shuffle of 2 groups, and a 1x1 head)
with random weights, plus x.npy (the input) and calib.npy (8 calibration
inputs) into argv[1]."""
import os
import sys

import numpy as np
from tir_text import TirText

t = TirText(3)
rs, lines, const, node = t.rs, t.lines, t.const, t.node


def shuffle(src, dst, c, h):
    node(f"%{dst}.r: f32[1,2,{c // 2},{h},{h}] = reshape(%{src}) {{shape=[1, 2, {c // 2}, {h}, {h}]}}")
    node(f"%{dst}.t: f32[1,{c // 2},2,{h},{h}] = transpose(%{dst}.r) {{perm=[0, 2, 1, 3, 4]}}")
    node(f"%{dst}: f32[1,{c},{h},{h}] = reshape(%{dst}.t) {{shape=[1, {c}, {h}, {h}]}}")


def conv2d(dst, src, cin, cout, h, k=1, group=1, stride=1, relu=True):
    const(dst + ".w", (cout, cin // group, k, k))
    const(dst + ".b", (cout,), 0.1)
    p, ho = k // 2, (h + 2 * (k // 2) - k) // stride + 1
    attrs = f"group={group}, pads=[{p}, {p}, {p}, {p}], strides=[{stride}, {stride}]" + (", act_min=0" if relu else "")
    node(f"%{dst}: f32[1,{cout},{ho},{ho}] = conv(%{src}, %{dst}.w, %{dst}.b) {{{attrs}}}")
    return ho


conv2d("stem", "x", 8, 48, 8)
# Block 1 (stride 1): x1, x2 = chunk(2); concat(x1, branch(x2)); shuffle.
node("%x1: f32[1,24,8,8] = slice(%stem) {ends=[1, 24, 8, 8], starts=[0, 0, 0, 0], steps=[1, 1, 1, 1]}")
node("%x2: f32[1,24,8,8] = slice(%stem) {ends=[1, 48, 8, 8], starts=[0, 24, 0, 0], steps=[1, 1, 1, 1]}")
conv2d("b1a", "x2", 24, 24, 8)
conv2d("b1b", "b1a", 24, 24, 8, k=3, group=24, relu=False)
conv2d("b1c", "b1b", 24, 24, 8)
node("%cat1: f32[1,48,8,8] = concat(%x1, %b1c) {axis=1}")
shuffle("cat1", "s1", 48, 8)
# Block 2 (stride 2): both branches read the shuffled block output.
conv2d("l2a", "s1", 48, 48, 8, k=3, group=48, stride=2, relu=False)
conv2d("l2b", "l2a", 48, 24, 4)
conv2d("r2a", "s1", 48, 24, 8)
conv2d("r2b", "r2a", 24, 24, 8, k=3, group=24, stride=2, relu=False)
conv2d("r2c", "r2b", 24, 24, 4)
node("%cat2: f32[1,48,4,4] = concat(%l2b, %r2c) {axis=1}")
shuffle("cat2", "s2", 48, 4)
conv2d("head", "s2", 48, 32, 4)
body = "\n".join(l for l in lines if l.startswith("  %"))
with open(os.path.join(sys.argv[1], "shuffle.tir"), "w") as f:
    f.write("graph @shuffle(%x: f32[1,8,8,8]) {\n" + body + "\n  return %head\n}\n")
np.save(os.path.join(sys.argv[1], "x.npy"), rs.standard_normal((1, 8, 8, 8)).astype(np.float32))
np.save(os.path.join(sys.argv[1], "calib.npy"), rs.standard_normal((8, 8, 8, 8)).astype(np.float32))
