"""What ADD_N and CUMSUM share: TFLite Micro sums their int8 inputs alike, each offset input
shifted into Q20 and halved, the sum rescaled to the output (struct tinyaot_q20_sum)."""

from __future__ import annotations

from .. import quant
from ..fixedpoint import mbqm
from ..ir import Graph, Op, Tensor
from ..lowering import op_error

LEFT_SHIFT = 20  # TFLM's kAddNIntegerShift and kCumSumIntegerShift


def q20_sum(graph: Graph, op: Op, inp: Tensor, out: Tensor) -> dict[str, int]:
    """The struct tinyaot_q20_sum fields: Prepare's multipliers, in double as TFLM's."""
    twice = 2 * float(quant.f32(inp.scale))
    in_mult, in_shift = quant.quantize_multiplier(float(quant.f32(inp.scale)) / twice)
    out_mult, out_shift = quant.quantize_multiplier(
        twice / ((1 << LEFT_SHIFT) * float(quant.f32(out.scale)))
    )
    if out_shift > 0:
        raise op_error(
            graph,
            op,
            "output scale below 2^-19 of the input scale; TFLM needs a multiplier below one",
            out.index,
        )
    return {
        "input_offset": -inp.zero_point,
        # TFLM's sums start from the input offset rescaled, not from zero.
        "initial": mbqm(-inp.zero_point << LEFT_SHIFT, in_mult, in_shift),
        "input_multiplier": in_mult,
        "input_shift": in_shift,
        "output_multiplier": out_mult,
        "output_shift": out_shift,
        "output_offset": out.zero_point,
    }
