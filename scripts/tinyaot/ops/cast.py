"""CAST: int8, int16, int32, float32 and bool to int8, int16, int32 or float32, on the
device or folded when the input is constant; int32 to uint32 and back as a view. TFLite
Micro writes no uint8 and no bool."""

from __future__ import annotations

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import Alias, KernelCall, OpDef, elementwise_io
from .unary_common import fold_unary, size_call

SUFFIX = {
    DType.INT8: "s8",
    DType.INT16: "s16",
    DType.INT32: "s32",
    DType.FLOAT32: "f32",
    DType.BOOL: "bool",
}
FROM = ("int8", "int16", "int32", "float32", "bool")
TO = ("int8", "int16", "int32", "float32")
# Same bits, another type: a view (the signal library's uint32 energies and channels).
REINTERPRET = (("int32", "uint32"), ("uint32", "int32"))


def cast_values(x: np.ndarray, to: DType) -> np.ndarray:
    """What crt/src/cast.c computes: integers keep their low bits; floats truncate and
    saturate to the output's range, NaN giving 0."""
    if to == DType.FLOAT32 or x.dtype.kind != "f":
        return x.astype(to.numpy)
    info = np.iinfo(to.numpy)
    f = np.nan_to_num(x.astype(np.float64), nan=0.0, posinf=info.max, neginf=info.min)
    return np.clip(np.trunc(f), info.min, info.max).astype(to.numpy)


def lower(graph: Graph, op: Op) -> KernelCall | Alias:
    _, inp, out, _ = elementwise_io(graph, op)
    if (inp.dtype.short, out.dtype.short) in REINTERPRET:
        return Alias(inp.index)
    function = f"tinyaot_cast_{SUFFIX[inp.dtype]}_{SUFFIX[out.dtype]}"
    return size_call(inp, out, function, "tinyaot/cast.h", "struct tinyaot_cast_params")


OP = OpDef(
    "CAST",
    FROM,
    lower,
    "integers wrap; floats truncate and saturate, NaN gives 0 (as TFLite Micro)",
    converts=tuple((a, b) for a in FROM for b in TO) + REINTERPRET,
    fold=fold_unary(cast_values),
)
