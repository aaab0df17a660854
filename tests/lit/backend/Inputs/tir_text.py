"""The .tir text the lit generators write: seeded f32 constants and nodes, in order."""
import numpy as np


class TirText:
    def __init__(self, seed):
        self.rs = np.random.RandomState(seed)
        self.lines = []

    def const(self, name, shape, scale=0.3):
        v = (self.rs.standard_normal(shape) * scale).astype("<f4")
        self.lines.append(f"  %{name}: f32[{','.join(map(str, shape))}] = const 0x{v.tobytes().hex()}")

    def node(self, text):
        self.lines.append("  " + text)
