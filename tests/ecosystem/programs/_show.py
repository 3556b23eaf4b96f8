"""Prints values so that every float keeps all its digits (repr of float64 of the array's values)."""
import numpy as np


def show(label, value):
    arr = np.asarray(value)
    print(label, arr.dtype, list(arr.shape), [float(v) for v in arr.astype(np.float64).ravel()])
