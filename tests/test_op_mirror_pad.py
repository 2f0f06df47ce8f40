"""MIRROR_PAD, REFLECT and SYMMETRIC, int8 and float32, against TFLite Micro."""

from __future__ import annotations

import pytest
import tfmodels
from harness import check_against_tflm
from opcheck import op_kinds, write_model

# (input shape, paddings): a rank-4 image padded in its two spatial dims, and a rank-2 case
# padded in both, as wide as REFLECT allows (size - 1) on one side.
CASES = {
    "image": ((1, 4, 5, 3), [[0, 0], [1, 2], [2, 1], [0, 0]]),
    "matrix": ((4, 6), [[3, 0], [0, 5]]),
}


def _pad(paddings, mode):
    import tensorflow as tf

    return lambda x: tf.pad(x, paddings, mode=mode)


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "float32"])
@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("case", CASES, ids=CASES.keys())
def test_mirror_pad_matches_tflm(tmp_path, case, mode, int8):
    shape, paddings = CASES[case]
    if mode == "SYMMETRIC":
        paddings = [[min(a, s), min(b, s)] for (a, b), s in zip(paddings, shape, strict=True)]
    data = tfmodels.convert(_pad(paddings, mode), [shape], int8=int8)
    path = write_model(data, tmp_path)
    assert "MIRROR_PAD" in op_kinds(path)
    result = check_against_tflm(path, tmp_path, sets=2)
    if int8:
        assert result.exact
