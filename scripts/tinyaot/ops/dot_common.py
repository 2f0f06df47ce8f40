"""What the ops whose int8 products are a weight matrix times a vector share with their C
(tinyaot/dot_s8.h): the layout of their weights."""

from __future__ import annotations

import numpy as np

# TINYAOT_DOT_BLOCK: the inputs of a block, one Helium vector or four DSP words.
BLOCK = 16


def dot4_blocks(rows: np.ndarray) -> np.ndarray:
    """Weight rows [units, n] as tinyaot_dot4_blocked_s8 reads them, flat: per four rows, their
    BLOCK weights for each block of inputs in turn, then the n % BLOCK left of each row, row
    after row; the units % 4 rows left after the fours stay as they are. The same bytes as
    the rows', reordered, at the same offset per four rows."""
    units, n = rows.shape
    whole = n - n % BLOCK
    out = []
    for u in range(0, units - units % 4, 4):
        four = rows[u : u + 4]
        blocks = four[:, :whole].reshape(4, whole // BLOCK, BLOCK).transpose(1, 0, 2)
        out += [blocks.ravel(), four[:, whole:].ravel()]
    out.append(rows[units - units % 4 :].ravel())
    return np.concatenate(out)
