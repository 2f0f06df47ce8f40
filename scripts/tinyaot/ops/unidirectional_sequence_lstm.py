"""UNIDIRECTIONAL_SEQUENCE_LSTM: TFLite Micro's lstm_eval, the standard Keras LSTM (no
peephole, projection, layer norm or CIFG). int8 with an int16 cell state and int16 gates
(Q3.12 pre-activations, Q0.15 activations); int16x8 (int16 activations and hidden state,
int8 weights, int64 biases) the same with TFLite Micro's int64 sums; and float32. The hidden
and cell states are variable tensors in the state buffer; the op's intermediates (the
converter's gate scales) are not read, as TFLite Micro does not read them."""

from __future__ import annotations

import math

import numpy as np

from .. import quant
from ..ir import DType, Graph, Op, Tensor
from ..lowering import (
    ConstArray,
    KernelCall,
    OpDef,
    TensorArg,
    op_error,
    require_quant,
    scratch_tensor,
)
from .dot_common import dot4_blocks

# Input indices (TFLite's lstm_shared.h): the input, the input and recurrent weights of the
# input, forget, cell and output gates, their biases, the hidden and cell states.
INPUT, HIDDEN, CELL = 0, 18, 19
INPUT_WEIGHTS, RECURRENT_WEIGHTS, BIASES = (1, 2, 3, 4), (5, 6, 7, 8), (12, 13, 14, 15)
VARIANTS = {9: "peephole", 10: "peephole", 11: "peephole", 16: "projection", 17: "projection"}
VARIANTS.update({i: "layer norm" for i in range(20, 24)})
ACT_TANH = 4
GATE_SCALE = 2.0**-12  # the gates' pre-activations are Q3.12
ACTIVATION_SCALE = 2.0**-15  # and their activations Q0.15
# The three gate buffers of one step, a tensor only the op uses.
GATES = "UNIDIRECTIONAL_SEQUENCE_LSTM gates"


def _weights(graph: Graph, op: Op, slots: tuple[int, ...], dtype: DType) -> list[Tensor]:
    out = []
    for slot in slots:
        index = op.inputs[slot] if slot < len(op.inputs) else None
        if index is None:
            raise op_error(
                graph, op, f"input {slot} is missing; only the full LSTM (no CIFG) is supported"
            )
        t = graph.tensor(index)
        if not t.is_const or t.dtype != dtype:
            raise op_error(
                graph, op, f"input {slot} must be a constant {dtype.short} tensor", index
            )
        out.append(t)
    return out


def _multiplier(a: Tensor, b: Tensor, out_scale: float) -> tuple[int, int]:
    """GetQuantizedConvolutionMultipler: the float product of the scales, then in double."""
    return quant.quantize_multiplier(quant.f32(a.scale * b.scale) / out_scale)


def lower(graph: Graph, op: Op) -> KernelCall:
    for slot, what in VARIANTS.items():
        if slot < len(op.inputs) and op.inputs[slot] is not None:
            raise op_error(
                graph, op, f"input {slot} ({what}) is set; only the standard LSTM is supported"
            )
    if len(op.inputs) < 20 or op.inputs[HIDDEN] is None or op.inputs[CELL] is None:
        raise op_error(graph, op, "the hidden and cell state inputs (18, 19) are missing")
    inp, out = graph.tensor(op.inputs[INPUT]), graph.tensor(op.outputs[0])
    hidden, cell = graph.tensor(op.inputs[HIDDEN]), graph.tensor(op.inputs[CELL])
    for t in (hidden, cell):
        if not t.variable:
            raise op_error(
                graph, op, "the hidden and cell states must be variable tensors", t.index
            )
    if op.options.get("FusedActivationFunction") != ACT_TANH:
        raise op_error(graph, op, "the cell activation must be TANH, as TFLite Micro's is")
    time_major = bool(op.options.get("TimeMajor"))
    if len(inp.shape) != 3 or len(out.shape) != 3:
        raise op_error(graph, op, "input and output must be 3-D", inp.index)
    steps, batches = inp.shape[:2] if time_major else inp.shape[1::-1]
    size = inp.shape[2]
    units = hidden.shape[-1]
    if (
        out.shape != (*inp.shape[:2], units)
        or hidden.num_elements != batches * units
        or cell.num_elements != batches * units
    ):
        raise op_error(graph, op, "output or state shapes do not fit the input", out.index)
    dtype = inp.dtype
    # Hybrid: float32 activations and states with int8 weights (OpDef.hybrid).
    hybrid = dtype == DType.FLOAT32 and graph.tensor(op.inputs[1]).dtype == DType.INT8
    wtype = DType.FLOAT32 if dtype == DType.FLOAT32 and not hybrid else DType.INT8
    # TFLite Micro reads int16x8 biases as int64 whatever their type: int32 ones are refused.
    btype = {DType.FLOAT32: DType.FLOAT32, DType.INT16: DType.INT64}.get(dtype, DType.INT32)
    wi = _weights(graph, op, INPUT_WEIGHTS, wtype)
    wr = _weights(graph, op, RECURRENT_WEIGHTS, wtype)
    bias = _weights(graph, op, BIASES, btype)
    for w in wi:
        if w.shape != (units, size):
            raise op_error(graph, op, f"input weights must be [{units}, {size}]", w.index)
    for w in wr:
        if w.shape != (units, units):
            raise op_error(graph, op, f"recurrent weights must be [{units}, {units}]", w.index)
    for b in bias:
        if b.shape != (units,):
            raise op_error(graph, op, f"biases must be [{units}]", b.index)
    rows, sequences = (batches, 1) if time_major else (1, batches)
    dims = {
        "sequences": sequences,
        "rows": rows,
        "time_steps": steps,
        "input_size": size,
        "units": units,
    }
    clip = float(op.options.get("CellClip") or 0.0)
    ctype = wtype.ctype
    weights = [
        ConstArray(ctype, np.concatenate([w.data.ravel() for w in wi])),  # type: ignore[union-attr]
        ConstArray(ctype, np.concatenate([w.data.ravel() for w in wr])),  # type: ignore[union-attr]
        ConstArray(btype.ctype, np.concatenate([b.data.ravel() for b in bias])),  # type: ignore[union-attr]
    ]
    macs = steps * batches * 4 * units * (size + units)
    if dtype == DType.FLOAT32:
        if cell.dtype != DType.FLOAT32 or hidden.dtype != DType.FLOAT32:
            raise op_error(graph, op, "float32 states are needed with float32 input", cell.index)
        scratch = scratch_tensor(graph, op, GATES, DType.FLOAT32, 3 * rows * units)
        params: dict[str, object] = {**dims, "cell_clip": max(clip, 0.0)}
        if hybrid:
            require_quant(graph, op, [w.index for w in wi + wr])
            params = {
                "f": params,
                "input_scale": [float(quant.f32(w.scale)) for w in wi],
                "recurrent_scale": [float(quant.f32(w.scale)) for w in wr],
            }
        kind = "hybrid" if hybrid else "f32"
        return KernelCall(
            f"tinyaot_lstm_{kind}",
            "tinyaot/lstm.h",
            f"struct tinyaot_lstm_{kind}_params",
            params,  # type: ignore[arg-type]
            [
                TensorArg(inp.index),
                *weights,
                TensorArg(hidden.index, writable=True),
                TensorArg(cell.index, writable=True),
                TensorArg(out.index, writable=True),
                TensorArg(scratch, writable=True),
            ],
            macs=macs,
        )
    if hidden.dtype != dtype or out.dtype != dtype:
        raise op_error(
            graph, op, f"the hidden state and output must be {dtype.short}", hidden.index
        )
    if cell.dtype != DType.INT16:
        raise op_error(
            graph, op, "the cell state must be int16, the only one TFLite Micro takes", cell.index
        )
    require_quant(graph, op, [inp.index, hidden.index, cell.index, *(w.index for w in wi + wr)])
    if any(w.zero_point != 0 for w in wi + wr):
        raise op_error(graph, op, "weights must be symmetric (zero point 0)", wi[0].index)
    gates = [_multiplier(inp, w, GATE_SCALE) for w in wi]
    recurrent = [_multiplier(hidden, w, GATE_SCALE) for w in wr]
    # CreateInterGateMulParams: products of the float scales in double.
    forget = quant.quantize_multiplier(ACTIVATION_SCALE * cell.scale / cell.scale)
    update = quant.quantize_multiplier(ACTIVATION_SCALE * ACTIVATION_SCALE / cell.scale)
    out_mult = quant.quantize_multiplier(ACTIVATION_SCALE * ACTIVATION_SCALE / hidden.scale)
    # CreateLstmCellStateInfo: the scale's power of two, rounded; tanh's input shift from it.
    power = quant.round_half_away(math.log2(cell.scale))
    left = 15 + power - 3
    tanh_mult, tanh_shift = (3 << left, 0) if left >= 0 else (3, -left)
    cell_clip = int(min(max(clip / cell.scale, -32768.0), 32767.0)) if clip > 0 else -1
    scratch = scratch_tensor(graph, op, GATES, DType.INT16, 3 * rows * units)
    if dtype == DType.INT8:
        weights = [
            ConstArray(ctype, np.concatenate([dot4_blocks(w.data) for w in wi])),  # type: ignore[arg-type]
            ConstArray(ctype, np.concatenate([dot4_blocks(w.data) for w in wr])),  # type: ignore[arg-type]
            ConstArray("int32_t", _effective_biases(inp, hidden, wi, wr, bias)),
        ]
    return KernelCall(
        "tinyaot_lstm_s16" if dtype == DType.INT16 else "tinyaot_lstm_s8",
        "tinyaot/lstm.h",
        "struct tinyaot_lstm_s8_params",
        {
            **dims,
            "input_zero_point": inp.zero_point,
            "hidden_zero_point": hidden.zero_point,
            "input_mult": [m for m, _ in gates],
            "input_shift": [s for _, s in gates],
            "recurrent_mult": [m for m, _ in recurrent],
            "recurrent_shift": [s for _, s in recurrent],
            "forget_mult": forget[0],
            "forget_shift": forget[1],
            "update_mult": update[0],
            "update_shift": update[1],
            "hidden_mult": out_mult[0],
            "hidden_shift": out_mult[1],
            "cell_tanh_mult": tanh_mult,
            "cell_tanh_shift": tanh_shift,
            "cell_clip": cell_clip,
        },
        [
            TensorArg(inp.index),
            *weights,
            TensorArg(hidden.index, writable=True),
            TensorArg(cell.index, writable=True),
            TensorArg(out.index, writable=True),
            TensorArg(scratch, writable=True),
        ],
        macs=macs,
    )


def _effective_biases(
    inp: Tensor, hidden: Tensor, wi: list[Tensor], wr: list[Tensor], bias: list[Tensor]
) -> np.ndarray:
    """TFLite Micro's effective biases of the int8 kernel, so that it multiplies the stored
    bytes: per gate the bias less the input zero point times each unit's input weights, then
    per gate minus the hidden zero point times each unit's recurrent weights."""
    sums = [w.data.astype(np.int64).sum(axis=1) for w in wi + wr]  # type: ignore[union-attr]
    inputs = [
        b.data.astype(np.int64) - inp.zero_point * s  # type: ignore[union-attr]
        for b, s in zip(bias, sums[:4], strict=True)
    ]
    recurrent = [-hidden.zero_point * s for s in sums[4:]]
    return np.concatenate(inputs + recurrent).astype(np.int32)


OP = OpDef(
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    ("int8", "int16", "float32"),
    lower,
    "int8 and int16x8 (int64 biases) with an int16 cell state, float32, hybrid (int8 weights "
    "of one scale each); states in the state buffer; standard LSTM only (no peephole, "
    "projection, layer norm, CIFG), as TFLM",
    inputs=(1, 24),
    hybrid=1,
)
