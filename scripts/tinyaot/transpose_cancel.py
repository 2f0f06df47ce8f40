"""TRANSPOSEs that undo each other around ops that do not care about the layout are dropped.

A model converted from PyTorch or ONNX keeps its channels-first layout between the
convolutions, which TFLite runs channels-last: each convolution sits between a TRANSPOSE to
channels-last and one back, and the activations, PADs, ADDs and CONCATENATIONs between them
run channels-first (tflm_retinaface_int8: 95 TRANSPOSEs, 7.7 % of its Cortex-M3
instructions). Those in-between ops give the same bytes in either layout, once a PAD's
borders and a CONCATENATION's axis follow the permutation, so the region between them runs in
the convolutions' layout and its TRANSPOSEs have nothing to do.

A region is grown from one TRANSPOSE: every reader of a tensor in it must be an op of
LAYOUT_FREE (which joins the region) or a TRANSPOSE by the inverse permutation (which leaves
it); every other input of a region op must come from a TRANSPOSE by the same permutation
(which enters it). Anything else, a graph input or output inside, a constant operand, a
per-channel quantisation, leaves the graph as it was. The cancelled TRANSPOSEs keep their op
index (the model's numbering) and their output, lose their inputs and get no step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .ir import Graph, Op, Tensor

# The TRANSPOSE option that marks it cancelled: no step, its readers read its input.
CANCELLED = "tinyaot_transpose_cancelled"

ELEMENTWISE = frozenset(
    "ABS CEIL COS DEQUANTIZE ELU EXP FLOOR HARD_SWISH LEAKY_RELU LOG LOGISTIC NEG QUANTIZE "
    "RELU RELU6 RELU_N1_TO_1 RSQRT SIN SQRT SQUARE TANH ADD SUB MUL MAXIMUM MINIMUM".split()
)
PADS = frozenset(("PAD", "PADV2"))
LAYOUT_FREE = ELEMENTWISE | PADS | {"CONCATENATION"}


@dataclass
class _Region:
    perm: list[int]
    ops: set[int] = field(default_factory=set)
    tensors: set[int] = field(default_factory=set)
    entering: set[int] = field(default_factory=set)
    leaving: set[int] = field(default_factory=set)


def cancel_transposes(graph: Graph) -> None:
    """Cancels the TRANSPOSEs of every region (module docstring) the graph has."""
    for op in graph.ops:
        if op.kind != "TRANSPOSE" or CANCELLED in op.options or _perm(graph, op) is None:
            continue
        # Each rewrite moves readers, so each region is grown on the graph as it is now.
        producers, users = graph.producers(), graph.consumers()
        region = _grow(graph, op, producers, users)
        if region is not None:
            _rewrite(graph, region, users)


def _perm(graph: Graph, op: Op) -> list[int] | None:
    if len(op.inputs) != 2 or op.inputs[1] is None:
        return None
    perm_t = graph.tensor(op.inputs[1])
    if perm_t.data is None:
        return None
    rank = len(graph.tensor(op.inputs[0]).shape)
    perm = [int(p) + rank if int(p) < 0 else int(p) for p in perm_t.data.reshape(-1)]
    return perm if sorted(perm) == list(range(rank)) else None


def _data_inputs(op: Op) -> list[int | None]:
    """The inputs that carry the region's layout (a PAD's paddings and value do not)."""
    return op.inputs[:1] if op.kind in PADS else op.inputs


def _grow(
    graph: Graph, start: Op, producers: dict[int, int], users: dict[int, list[int]]
) -> _Region | None:
    perm = _perm(graph, start)
    assert perm is not None
    inverse = [perm.index(i) for i in range(len(perm))]
    region = _Region(perm)
    outside = set(graph.inputs) | set(graph.outputs)
    # (op, reached as a reader of a region tensor): a TRANSPOSE by perm enters the region only
    # as the writer of a region op's input; as a reader, it would permute the region twice.
    pending = [(start.index, False)]
    while pending:
        index, as_reader = pending.pop()
        op = graph.ops[index]
        if index in region.entering or index in region.ops:
            continue
        if op.kind == "TRANSPOSE":
            if as_reader or _perm(graph, op) != perm or CANCELLED in op.options:
                return None
            region.entering.add(index)
        else:
            if not _layout_free(graph, op):
                return None
            region.ops.add(index)
            for t in _data_inputs(op):
                if t is None or t not in producers:
                    return None
                pending.append((producers[t], False))
        for t in op.outputs:
            tensor = graph.tensor(t)
            if t in outside or not _per_tensor(tensor) or len(tensor.shape) != len(perm):
                return None
            region.tensors.add(t)
            for reader in users.get(t, []):
                other = graph.ops[reader]
                if other.kind == "TRANSPOSE" and _perm(graph, other) == inverse:
                    if CANCELLED in other.options or other.inputs[0] != t:
                        return None
                    if other.outputs[0] in graph.outputs:
                        return None
                    region.leaving.add(reader)
                else:
                    pending.append((reader, True))
    return region


def _per_tensor(t: Tensor) -> bool:
    return t.quant is None or not t.quant.per_channel


def _layout_free(graph: Graph, op: Op) -> bool:
    if op.kind not in LAYOUT_FREE or len(op.outputs) != 1:
        return False
    out = graph.tensor(op.outputs[0])
    if op.kind in ELEMENTWISE:
        # No broadcasting: every operand has the output's shape.
        return all(t is not None and graph.tensor(t).shape == out.shape for t in op.inputs)
    if op.kind in PADS:
        if len(op.inputs) < 2 or op.inputs[1] is None:
            return False
        paddings = graph.tensor(op.inputs[1])
        # A (before, after) row an axis; the PAD's own lowering names any other.
        return paddings.data is not None and paddings.num_elements == 2 * len(out.shape)
    axis = op.options.get("Axis", 0)
    return isinstance(axis, int) and -len(out.shape) <= axis < len(out.shape)


def _rewrite(graph: Graph, region: _Region, users: dict[int, list[int]]) -> None:
    perm = region.perm
    rank = len(perm)
    for t in region.tensors:
        tensor = graph.tensors[t]
        # tensor.shape[i] is the channels-last shape's axis perm[i].
        shape = [0] * rank
        for i, size in enumerate(tensor.shape):
            shape[perm[i]] = size
        graph.tensors[t] = replace(tensor, shape=tuple(shape))
    for index in region.ops:
        op = graph.ops[index]
        if op.kind in PADS:
            op.inputs[1] = _permuted_paddings(graph, op.inputs[1], perm)  # type: ignore[arg-type]
        elif op.kind == "CONCATENATION":
            axis = int(op.options.get("Axis", 0))  # type: ignore[arg-type]
            op.options["Axis"] = perm[axis + rank if axis < 0 else axis]
    # Readers inside the region read an entering TRANSPOSE's input; readers past a leaving
    # one read the region's tensor, which has its output's shape now.
    renamed = {graph.ops[i].outputs[0]: graph.ops[i].inputs[0] for i in region.entering}
    renamed |= {graph.ops[i].outputs[0]: graph.ops[i].inputs[0] for i in region.leaving}
    for i in region.entering | region.leaving:
        graph.ops[i].options[CANCELLED] = True
    for old in renamed:
        new = renamed[old]
        # A TRANSPOSE straight after its inverse: both go, the reader reads the first's input.
        while new in renamed:
            new = renamed[new]
        for reader in users.get(old, []):
            op = graph.ops[reader]
            if CANCELLED not in op.options:
                op.inputs = [new if t == old else t for t in op.inputs]
    # Read by nothing, they hold up no tensor and are no reader a later pass has to count.
    for i in region.entering | region.leaving:
        graph.ops[i].inputs = []


def _permuted_paddings(graph: Graph, index: int, perm: list[int]) -> int:
    """A new constant of the PAD's (before, after) rows in the channels-last order."""
    paddings = graph.tensors[index]
    rows = np.asarray(paddings.data).reshape(len(perm), 2)
    moved = np.empty_like(rows)
    for i, row in enumerate(rows):
        moved[perm[i]] = row
    new = replace(paddings, index=len(graph.tensors), data=moved.reshape(paddings.data.shape))
    graph.tensors.append(new)
    return new.index
