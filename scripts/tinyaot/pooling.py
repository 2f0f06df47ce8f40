"""What AVERAGE_POOL_2D and MAX_POOL_2D share: everything but the kernel they call."""

from __future__ import annotations

import numpy as np

from . import inplace, quant
from .ir import DType, Graph, Op
from .lowering import (
    ConstArray,
    KernelCall,
    TensorArg,
    int_option,
    op_error,
    require_quant,
    shape4,
    window_dims,
)


def pool_call(graph: Graph, op: Op, kernel: str) -> KernelCall:
    """AVERAGE_POOL_2D and MAX_POOL_2D share everything but the kernel they call."""
    dtype = graph.tensor(op.inputs[0]).dtype
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    n, h, w, c = shape4(inp)
    on, oh, ow, oc = shape4(out)
    if (on, oc) != (n, c):
        raise op_error(
            graph, op, f"output {list(out.shape)} does not fit input {list(inp.shape)}", out.index
        )
    kh, kw = int_option(graph, op, "FilterHeight"), int_option(graph, op, "FilterWidth")
    dims = window_dims(graph, op, inp, out, (kh, kw), channels=c)
    act = int(op.options.get("FusedActivationFunction", 0))
    args: list[TensorArg | ConstArray | None] = [
        TensorArg(inp.index),
        TensorArg(out.index, writable=True),
    ]
    overlap = {
        "inplace": (inplace.windowed(inp.index, dims, c, c, np.arange(c), dtype.size, dtype.size),),
        "reverse_param": "d.reverse",
    }
    if dtype == DType.FLOAT32:
        lo, hi = quant.activation_range_float(act, op.describe())
        return KernelCall(
            f"tinyaot_{kernel}_f32",
            "tinyaot/pooling.h",
            "struct tinyaot_pool_f32_params",
            {"d": dims, "act_min": lo, "act_max": hi},
            args,
            **overlap,
        )
    require_quant(graph, op, [inp.index, out.index])
    if (quant.f32(inp.scale), inp.zero_point) != (quant.f32(out.scale), out.zero_point):
        raise op_error(
            graph,
            op,
            f"{dtype.short} pooling needs the same scale and zero point in and out",
            out.index,
        )
    # int16 takes the int8 kernel's steps and parameters, as TFLite Micro's reference does.
    wide = dtype == DType.INT16
    ranges = quant.activation_range_int16 if wide else quant.activation_range_int8
    lo, hi = ranges(act, out, op.describe())
    return KernelCall(
        f"tinyaot_{kernel}_{'s16' if wide else 's8'}",
        "tinyaot/pooling.h",
        "struct tinyaot_pool_s8_params",
        {"d": dims, "act_min": lo, "act_max": hi},
        args,
        **overlap,
    )
