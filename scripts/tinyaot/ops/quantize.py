"""QUANTIZE: float32 to int8 or int16, and requantisation between int8, uint8, int16 and
int32 where TFLite Micro has it.

TFLite Micro has no float32 -> uint8 QUANTIZE (its invoke fails), so neither has this."""

from __future__ import annotations

import numpy as np

from .. import inplace, quant
from ..fixedpoint import mbqm
from ..ir import DType, Graph, Op
from ..lowering import ByFpu, ConstArray, KernelCall, OpDef, TensorArg, op_error, require_quant
from .lut_common import FLOAT_TABLE_MIN_ELEMENTS, lut8

SUFFIX = {DType.INT8: "s8", DType.INT16: "s16", DType.INT32: "i32"}


# The float keys of tinyaot_quantize_f32 (tinyaot/quantize.h) span: from the lowest (a negative
# NaN, which gives -128) to +infinity's.
KEY_LOW, KEY_INF = -(1 << 31), 0x7F800000


def key_floats(keys: np.ndarray) -> np.ndarray:
    """The float32 whose key (tinyaot/quantize.h) is each of keys (int64)."""
    bits = np.where(keys >= 0, keys, keys ^ 0x7FFFFFFF) & 0xFFFFFFFF
    return bits.astype(np.uint32).view(np.float32)


def quantize_f32(x: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """tinyaot_quantize_f32 on float32 arrays: the quotient in float32, bounded to +-256 (NaN
    to -256), rounded half away from zero, plus the zero point, saturated to int8."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        q = x / np.float32(scale)
    bound = np.float32(256)
    q = np.where(q > -bound, np.minimum(q, bound), -bound)
    r = np.trunc(q)
    r += (q - r >= 0.5).astype(np.float32) - (q - r <= -0.5).astype(np.float32)
    return np.clip(r.astype(np.int64) + zero_point, -128, 127)


def quantize_keys(scale: float, zero_point: int) -> np.ndarray:
    """The keys of tinyaot_quantize_f32: INT32_MIN, then for each output -127 to 127 the
    least key whose float gives it or more (bisection, all 255 at once), INT32_MAX where none
    does."""
    levels = np.arange(-127, 128, dtype=np.int64)
    lo = np.full(levels.shape, KEY_LOW, dtype=np.int64)
    hi = np.full(levels.shape, KEY_INF, dtype=np.int64)
    reached = quantize_f32(key_floats(hi), scale, zero_point) >= levels
    # The least key giving the level is in (lo, hi]: lo gives -128, less than every level.
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        up = quantize_f32(key_floats(mid), scale, zero_point) >= levels
        hi, lo = np.where(up, mid, hi), np.where(up, lo, mid)
    keys = np.where(reached, hi, (1 << 31) - 1)
    return np.concatenate([[KEY_LOW], keys]).astype(np.int32)


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    require_quant(graph, op, [out.index])
    args = [TensorArg(inp.index), TensorArg(out.index, writable=True)]
    if inp.dtype == DType.FLOAT32:
        # AffineQuantize divides by the scale as a float; emitted as that float.
        params = {
            "size": inp.num_elements,
            "scale": quant.f32(out.scale),
            "zero_point": out.zero_point,
            "keys": None,
        }
        if out.dtype == DType.INT8 and inp.num_elements >= FLOAT_TABLE_MIN_ELEMENTS:
            # An FPU's VDIV beats the keys' bisection (arm_kws_dnn_s's 250 elements on the
            # Cortex-M4F: 7,624 instructions more by the keys): there, no keys and no flash.
            keys = ConstArray("int32_t", quantize_keys(out.scale, out.zero_point))
            params["keys"] = ByFpu(keys, None)
        return KernelCall(
            "tinyaot_quantize_f32" + ("_s16" if out.dtype == DType.INT16 else ""),
            "tinyaot/quantize.h",
            "struct tinyaot_quantize_f32_params",
            params,
            args,
            inplace=inplace.unary(inp, out),
        )
    require_quant(graph, op, [inp.index])
    # PrepareQuantizeReference: input scale / output scale in double; then Requantize, whose
    # xor-0x80 shortcut for int8 <-> uint8 gives what its general formula gives.
    mult, shift = quant.quantize_multiplier(float(inp.scale) / float(out.scale))
    if inp.dtype.size == out.dtype.size == 1:
        return lut8(graph, op, lambda v: mbqm(v - inp.zero_point, mult, shift) + out.zero_point)
    params = {
        "size": inp.num_elements,
        "input_zero_point": inp.zero_point,
        "output_zero_point": out.zero_point,
        "multiplier": mult,
        "shift": shift,
    }
    return KernelCall(
        f"tinyaot_requantize_{SUFFIX[inp.dtype]}_{SUFFIX[out.dtype]}",
        "tinyaot/quantize.h",
        "struct tinyaot_requantize_params",
        params,
        args,
        inplace=inplace.unary(inp, out),
    )


OP = OpDef(
    "QUANTIZE",
    ("float32", "int8", "uint8", "int16", "int32"),
    lower,
    "per-tensor output; 8-bit to 8-bit as a 256-byte table",
    converts=(
        ("float32", "int8"),
        ("float32", "int16"),
        ("int8", "int8"),
        ("int8", "uint8"),
        ("uint8", "int8"),
        ("int8", "int16"),
        ("int16", "int8"),
        ("int16", "int16"),
        ("int16", "int32"),
        ("int32", "int16"),
    ),
)
