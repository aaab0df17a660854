"""Exits non-zero unless two .npy arrays have the same shape and
max|a - b| <= TOL * max|b|. Usage: python close.py A.npy B.npy TOL"""
import sys

import numpy as np

a, b, tol = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
if a.shape != b.shape:
    sys.exit(f"shapes differ: {a.shape} vs {b.shape}")
err = float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))
print(f"relative error {err:.3g} (tolerance {tol})")
sys.exit(0 if err <= tol else 1)
