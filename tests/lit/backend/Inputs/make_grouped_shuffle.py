"""Writes gs.tir (int8: two 3x3 qconvs of 32 to 64 channels over 4x4, each
followed by PyTorch's PixelShuffle(2) export (reshape, transpose, reshape) to
16 channels of 8x8: %g with 2 groups, %u without) and x.npy into argv[1]."""
import os
import sys

import numpy as np

rs = np.random.RandomState(13)
lines = []


def shuffled(name, group, shift):
    w = rs.randint(-64, 65, size=(64, 32 // group, 3, 3))
    vals = ", ".join(map(str, w.ravel()))
    lines.append(f"  %{name}.w: i8[64,{32 // group},3,3]<s=0.01> = const [{vals}]")
    lines.append(f"  %{name}: i8[1,64,4,4]<s=0.05> = qconv(%x, %{name}.w) "
                 f"{{group={group}, multiplier=[1073741824], pads=[1, 1, 1, 1], shift={shift}}}")
    lines.append(f"  %{name}.r: i8[1,16,2,2,4,4]<s=0.05> = reshape(%{name}) {{shape=[1, 16, 2, 2, 4, 4]}}")
    lines.append(f"  %{name}.t: i8[1,16,4,2,4,2]<s=0.05> = transpose(%{name}.r) {{perm=[0, 1, 4, 2, 5, 3]}}")
    lines.append(f"  %{name}.y: i8[1,16,8,8]<s=0.05> = reshape(%{name}.t) {{shape=[1, 16, 8, 8]}}")


shuffled("g", 2, 40)
shuffled("u", 1, 41)
with open(os.path.join(sys.argv[1], "gs.tir"), "w") as f:
    f.write("graph @gs(%x: i8[1,32,4,4]<s=0.05>) {\n" + "\n".join(lines) + "\n  return %g.y, %u.y\n}\n")
np.save(os.path.join(sys.argv[1], "x.npy"), rs.randint(-128, 128, size=(1, 32, 4, 4)).astype(np.int8))
