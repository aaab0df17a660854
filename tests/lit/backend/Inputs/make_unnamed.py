"""Writes unnamed.tir (two unnamed 3x3 int8 convolutions with random weights,
both accelerator layers) and x.npy (an int8 input) into argv[1]."""
import os
import sys

import numpy as np

rs = np.random.RandomState(1)
ints = lambda n: ", ".join(str(v) for v in rs.randint(-100, 100, n))
with open(os.path.join(sys.argv[1], "unnamed.tir"), "w") as f:
    f.write("graph @g(%x: i8[1,16,8,8]<s=0.5>) {\n")
    for i, (src, dst) in enumerate((("x", "a"), ("a", "b"))):
        f.write(f"  %w{i}: i8[16,16,3,3]<s=0.1> = const [{ints(16 * 16 * 9)}]\n")
        f.write(f"  %{dst}: i8[1,16,8,8]<s=0.25> = qconv(%{src}, %w{i}) "
                "{multiplier=[1073741824], pads=[1, 1, 1, 1], shift=40}\n")
    f.write("  return %b\n}\n")
np.save(os.path.join(sys.argv[1], "x.npy"), rs.randint(-128, 128, (1, 16, 8, 8)).astype(np.int8))
