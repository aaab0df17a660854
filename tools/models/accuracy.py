#!/usr/bin/env python3
"""Top-1 accuracy of predictions (N,C scores .npy) against labels (N .npy).

Usage: /usr/bin/python3 tools/models/accuracy.py PRED.npy LABELS.npy
"""
import sys

import numpy as np


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    pred, labels = np.load(sys.argv[1]), np.load(sys.argv[2])
    if pred.ndim != 2 or len(pred) != len(labels):
        sys.exit(f"shapes do not match: predictions {pred.shape}, labels {labels.shape}")
    acc = float((pred.argmax(1) == labels).mean())
    print(f"accuracy {acc:.4f} ({int(round(acc * len(labels)))}/{len(labels)})")


if __name__ == "__main__":
    main()
