"""Writes ct.tir (a float decoder: a 3x3 stem to 16 channels at 6x6, then
conv_transposes to 12x12 of every shape the device pixel shuffle takes or
refuses, conv_shuffle.h) with random weights, plus x.npy (the input) and
calib.npy (8 calibration inputs) into argv[1]:
  %a  2x2/2 to 32 channels (U-Net: a 1x1 phase conv, no crop), ReLU, concatenated
      with a 1x1 conv of itself (in place) and read by a 1x1 head;
  %c  4x4/2 padding 1 (DCGAN: a one-pixel crop on every side), ReLU;
  %d  3x3/2 padding 1 output_padding 1 (a crop at the top and left), added to %c;
  %e  2x2/2 to 24 channels (not whole 16-lane blocks: the host shuffles on
      default, the device on tiny's 4-lane blocks);
  %f  3x2 kernel, strides (2, 1), padding (1, 0): 2 row phases, 1 column phase, 11x7."""
import os
import sys

import numpy as np
from tir_text import TirText

t = TirText(7)
rs, lines, const, node = t.rs, t.lines, t.const, t.node


def ct(dst, cout, k, s, p=(0, 0), op=(0, 0), relu=False):
    const(dst + ".w", (16, cout) + k)
    const(dst + ".b", (cout,), 0.1)
    oh, ow = ((6 - 1) * s[i] - 2 * p[i] + k[i] + op[i] for i in range(2))
    attrs = f"output_padding=[{op[0]}, {op[1]}], pads=[{p[0]}, {p[1]}, {p[0]}, {p[1]}], strides=[{s[0]}, {s[1]}]"
    node(f"%{dst}: f32[1,{cout},{oh},{ow}] = conv_transpose(%stem, %{dst}.w, %{dst}.b) {{{attrs}"
         + (", act_min=0}" if relu else "}"))


def conv(dst, src, cin, cout, h, k=1, relu=True):
    const(dst + ".w", (cout, cin, k, k))
    const(dst + ".b", (cout,), 0.1)
    p = k // 2
    attrs = f"pads=[{p}, {p}, {p}, {p}]" + (", act_min=0" if relu else "")
    node(f"%{dst}: f32[1,{cout},{h},{h}] = conv(%{src}, %{dst}.w, %{dst}.b) {{{attrs}}}")


conv("stem", "x", 8, 16, 6, k=3)
ct("a", 32, (2, 2), (2, 2), relu=True)
conv("a2", "a", 32, 16, 12)
node("%cat: f32[1,48,12,12] = concat(%a, %a2) {axis=1}")
conv("head", "cat", 48, 8, 12, relu=False)
ct("c", 16, (4, 4), (2, 2), (1, 1), relu=True)
ct("d", 16, (3, 3), (2, 2), (1, 1), (1, 1))
node("%sum: f32[1,16,12,12] = add(%c, %d)")
ct("e", 24, (2, 2), (2, 2))
ct("f", 16, (3, 2), (2, 1), (1, 0))
body = "\n".join(lines)
with open(os.path.join(sys.argv[1], "ct.tir"), "w") as f:
    f.write("graph @ct(%x: f32[1,8,6,6]) {\n" + body + "\n  return %head, %sum, %e, %f\n}\n")
np.save(os.path.join(sys.argv[1], "x.npy"), rs.standard_normal((1, 8, 6, 6)).astype(np.float32))
np.save(os.path.join(sys.argv[1], "calib.npy"), rs.standard_normal((8, 8, 6, 6)).astype(np.float32))
