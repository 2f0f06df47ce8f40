"""SignalRfft on int16: kiss_fft's real FFT in 16-bit fixed point, as TFLM builds it
(signal/src/rfft_int16.cc: kiss_fftr with FIXED_POINT 16). Each row of the input is
zero-padded to fft_length; its fft_length / 2 + 1 complex bins are written as (re, im).

The compiler does what kiss_fftr_alloc does at Init: the radices of the fft_length / 2-point
complex FFT (kf_factor) and the twiddles, rounded from double as its KISS_FFT_COS/SIN round
them. Radices 2 and 4 (every power of two) are supported; the int32 and float32 variants
are not.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir import DType, Graph, Op
from ..lowering import ConstArray, KernelCall, OpDef, TensorArg, op_error
from . import signal_common as sc

# TensorType_INT16, the option T's value for the int16 FFT.
INT16 = 7


def factors(n: int) -> list[int]:
    """kf_factor: powers of 4, then 2, then odd primes, as (radix, remaining length) pairs."""
    out: list[int] = []
    p = 4
    floor_sqrt = math.floor(math.sqrt(n))
    while True:
        while n % p:
            p = 2 if p == 4 else 3 if p == 2 else p + 2
            if p > floor_sqrt:
                p = n
        n //= p
        out += [p, n]
        if n <= 1:
            return out


def _cexp(phases: list[float]) -> np.ndarray:
    """kf_cexp in FIXED_POINT 16: floor(0.5 + 32767 cos), the same for sin, interleaved."""
    values = []
    for phase in phases:
        values += [
            math.floor(0.5 + 32767 * math.cos(phase)),
            math.floor(0.5 + 32767 * math.sin(phase)),
        ]
    return np.array(values, dtype=np.int16)


def twiddles(n: int) -> np.ndarray:
    """kiss_fft_alloc's forward twiddles of the n-point complex FFT."""
    return _cexp([-2 * math.pi * i / n for i in range(n)])


def super_twiddles(n: int) -> np.ndarray:
    """kiss_fftr_alloc's twiddles for the split of an n-point complex FFT into 2n reals."""
    return _cexp([-3.14159265358979323846264338327 * ((i + 1) / n + 0.5) for i in range(n // 2)])


def lower(graph: Graph, op: Op) -> KernelCall:
    inp, out = (graph.tensor(op.inputs[0]), graph.tensors[op.outputs[0]])
    opts = sc.options(graph, op, "T", "fft_length")
    if opts["T"] != INT16 or inp.dtype != DType.INT16:
        raise op_error(graph, op, "only the int16 FFT is supported", inp.index)
    sc.tensors(graph, op, (DType.INT16,), (DType.INT16,))
    n = opts["fft_length"]
    if n < 4 or n & (n - 1) or n > 1 << 15:
        raise op_error(graph, op, f"fft_length {n}; supported: powers of two from 4 to 32768")
    if not inp.shape or len(out.shape) != len(inp.shape):
        raise op_error(graph, op, "input and output must have the same rank", out.index)
    length = inp.shape[-1]
    if not 0 < length <= n:
        raise op_error(graph, op, f"rows of {length} samples; fft_length is {n}", inp.index)
    batches = inp.num_elements // length
    if out.shape[-1] != n + 2 or out.num_elements != batches * (n + 2):
        raise op_error(
            graph, op, f"the output must hold {n // 2 + 1} complex values per row", out.index
        )
    half = n // 2
    params = {
        "batches": batches,
        "input_length": length,
        "fft_length": n,
        "output_stride": (n + 2) // 2,
        "factors": ConstArray("int32_t", np.array(factors(half), dtype=np.int32)),
        "twiddles": ConstArray("int16_t", twiddles(half)),
        "super_twiddles": ConstArray("int16_t", super_twiddles(half)),
    }
    return KernelCall(
        "tinyaot_signal_rfft_s16",
        sc.HEADER,
        "struct tinyaot_signal_rfft_s16_params",
        params,  # type: ignore[arg-type]
        [
            TensorArg(inp.index),
            TensorArg(out.index, writable=True),
        ],
    )


OP = OpDef(
    "SignalRfft",
    ("int16",),
    lower,
    "CUSTOM op (audio front end): int16 kiss_fft real FFT, power-of-two lengths",
    custom=True,
)
