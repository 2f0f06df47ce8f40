"""The one float comparison of the tests, the op checks and the benchmark.

Kept free of the test helpers' imports so that bench/bench.py can use it as well.
"""

from __future__ import annotations

import math

import numpy as np

FLOAT_RTOL = 1e-5


def float_error(got: np.ndarray, want: np.ndarray) -> float:
    """Largest |got - want| over the largest finite magnitude of want.

    A NaN or an infinity on one side must be the same on the other (NaN for NaN, an
    infinity of the same sign), else the error is infinite: np.max and max() would
    otherwise let a NaN through, since every comparison with it is false.
    """
    g = np.asarray(got, dtype=np.float64)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"shape {g.shape}, expected {w.shape}"
    finite_g, finite_w = np.isfinite(g), np.isfinite(w)
    if not np.array_equal(finite_g, finite_w):
        return math.inf
    special = ~finite_w
    if not np.array_equal(np.isnan(g[special]), np.isnan(w[special])):
        return math.inf
    inf = special & ~np.isnan(w)
    if not np.array_equal(g[inf], w[inf]):
        return math.inf
    if not finite_w.any():
        return 0.0
    scale = max(float(np.max(np.abs(w[finite_w]))), float(np.finfo(np.float32).tiny))
    return float(np.max(np.abs(g[finite_w] - w[finite_w]))) / scale


def outputs_match(got: list[np.ndarray], want: list[np.ndarray]) -> bool:
    """Integer outputs byte for byte, float outputs within FLOAT_RTOL (see float_error)."""
    for g, w in zip(got, want, strict=True):
        if w.dtype.kind == "f":
            if float_error(g, w) > FLOAT_RTOL:
                return False
        elif g.dtype != w.dtype or g.tobytes() != w.tobytes():
            return False
    return True
