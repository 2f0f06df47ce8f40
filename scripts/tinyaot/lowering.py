"""What an op lowers to, and the helpers op files use to check what they are given.

An op file in ops/ turns one IR op into either a KernelCall (a C runtime kernel
with a constant params struct) or an Alias (its output is its input's bytes
under another shape). Codegen and the planner read only these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import CompileError
from .ir import DType, Graph, Op, Tensor


@dataclass(frozen=True)
class ConstArray:
    """Constant data computed at compile time (multipliers, rearranged weights, tables)."""

    ctype: str
    values: np.ndarray

    def key(self) -> tuple[str, bytes]:
        return self.ctype, self.values.tobytes()


@dataclass(frozen=True)
class Routine:
    """A runtime function passed by address in a params struct: the compiler picks the
    variant, and the link keeps only the variants a model names."""

    name: str


# The condition under which generated code takes a ByTarget's dsp value (tinyaot/isa.h: the
# DSP extension and the kernels that use it are built).
DSP_GUARD = "TINYAOT_DSP_KERNELS"
# ... and its mve value, where one is given (Helium and its kernels are built).
MVE_GUARD = "TINYAOT_MVE_KERNELS"


@dataclass(frozen=True)
class ByTarget:
    """A params field whose value depends on the core the generated code is compiled for: dsp
    where the DSP extension's kernels are built (Cortex-M4, M7, M33 with DSP), mve where
    Helium's are (Cortex-M55, M85), when given (else those cores take dsp, or default if the
    DSP kernels are not built), default elsewhere. Arrays only one of them names are compiled
    only for that target."""

    default: object
    dsp: object
    mve: object = None

    def guarded(self) -> list[tuple[str | None, object]]:
        """(condition, value) in the order the generated code tests them: #if, #elif...,
        then #else (condition None)."""
        if self.mve is None:
            return [(DSP_GUARD, self.dsp), (None, self.default)]
        return [(MVE_GUARD, self.mve), (DSP_GUARD, self.dsp), (None, self.default)]

    def guards(self) -> list[tuple[str, object]]:
        """Each value with the whole condition under which it is compiled: default first,
        then dsp, then mve (the order the generated arrays are numbered in)."""
        out: list[tuple[str, object]] = []
        earlier: list[str] = []
        for cond, value in self.guarded():
            terms = [f"!{c}" for c in earlier] + ([cond] if cond else [])
            out.append((" && ".join(terms), value))
            if cond:
                earlier.append(cond)
        return out[::-1]


# ... and a ByFpu's fpu value (tinyaot/isa.h: a single-precision FPU, under any float ABI).
FPU_GUARD = "TINYAOT_ISA_FPU_SP"


@dataclass(frozen=True)
class ByFpu:
    """A params field whose value depends on whether the core has a single-precision FPU: fpu
    there (Cortex-M4F, M7, M33, M55 with one), soft elsewhere; an array only one of them names
    is compiled only where it is taken."""

    soft: object
    fpu: object

    def guarded(self) -> list[tuple[str | None, object]]:
        """As ByTarget.guarded."""
        return [(FPU_GUARD, self.fpu), (None, self.soft)]

    def guards(self) -> list[tuple[str, object]]:
        """As ByTarget.guards."""
        return [(f"!{FPU_GUARD}", self.soft), (FPU_GUARD, self.fpu)]


@dataclass(frozen=True)
class TensorArg:
    """A kernel argument that is a model tensor: in the arena, or constant in flash."""

    index: int
    writable: bool = False


@dataclass(frozen=True)
class TensorList:
    """Several tensors as one kernel argument, an array of pointers, for ops whose number
    of inputs varies from model to model (one list per kernel call)."""

    indices: tuple[int, ...]

    def tensor_args(self) -> list[TensorArg]:
        return [TensorArg(i) for i in self.indices]


def tensor_args(args: list[object]) -> list[TensorArg]:
    """Every tensor a kernel call passes, lists flattened."""
    out: list[TensorArg] = []
    for a in args:
        if isinstance(a, TensorArg):
            out.append(a)
        elif isinstance(a, TensorList):
            out += a.tensor_args()
    return out


ParamValue = int | float | ConstArray | TensorArg | None


@dataclass(frozen=True)
class InPlace:
    """The output may overlap input `input` if that input dies at this op and either
    input offset - output offset >= forward (kernel runs forward) or
    output offset - input offset >= reverse (kernel runs in reverse; None: it can't),
    the offsets differing by a multiple of modulus."""

    input: int
    forward: int
    reverse: int | None
    modulus: int = 1


@dataclass
class KernelCall:
    function: str
    header: str
    params_type: str | None
    params: dict[str, ParamValue]
    args: list[TensorArg | TensorList | ConstArray | None]
    macs: int = 0
    # Inputs the output may overlap when they die at this op (see inplace.py).
    inplace: tuple[InPlace, ...] = ()
    # The params field ("d.reverse") that selects reverse element order, for
    # kernels that have one; the compiler sets it to 1 when the plan needs it.
    reverse_param: str | None = None
    # Set for a custom op whose kernel the application supplies (custom.py): codegen passes
    # it a struct tinyaot_custom_call instead of a params struct, and checks its status.
    custom: CustomOp | None = None
    # The kernel returns TINYAOT_OK or an error for input the interpreter would fail on; the
    # invoke stops there and returns it.
    returns_status: bool = False
    # The same op without the scratch this call is handed (a kernel's working memory that
    # only makes it faster): the compiler takes it where the scratch would grow the arena.
    narrow: KernelCall | None = None
    # A faster form of the call whose tables take more flash on the cores that read them: the
    # compiler takes it where the weights may grow (Options.speed_flash).
    faster: FlashVariant | None = None


@dataclass
class FlashVariant:
    """A call that does what another does, faster, for `extra` more bytes of const tables on
    the cores with the DSP extension (none on the others)."""

    call: KernelCall
    extra: int


@dataclass(frozen=True)
class CustomOp:
    """What a user-supplied custom kernel is told besides its tensors."""

    code: str
    options: bytes
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


@dataclass
class Alias:
    """The output is a view of the input (same bytes, other shape): no code at all."""

    source: int


Lowered = KernelCall | Alias


# Every dtype name the IR knows, for ops that only move bytes (RESHAPE, SQUEEZE, ...).
ANY_DTYPE = tuple(d.short for d in DType)

# The op option naming the variable tensor of an op's own state (OpDef.state).
STATE_OPTION = "tinyaot_state"

Fold = Callable[[Graph, Op], "list[np.ndarray] | None"]


@dataclass(frozen=True)
class OpDef:
    """One builtin op: its signature, how it lowers, and how it folds. One file in ops/ each.

    The compiler checks the signature before it calls `lower` or `fold`, so neither repeats
    it: the number of inputs (`inputs`, a range; the first `inputs[0]` must be present) and
    outputs, the dtype of the data input (`dtypes`; the first input unless `data_input` says
    otherwise), and the dtype of every output: the data input's, or for ops that convert, one
    of the (input, output) pairs in `converts`.

    `fold` (optional) computes the outputs at compile time with NumPy when it can, usually
    when every input is constant, and returns None when it cannot. A folded op emits no code:
    its outputs become constants. Shape arithmetic (SHAPE, STRIDED_SLICE, PACK, ...) on int32
    folds this way and never reaches the device, whatever dtypes `lower` accepts.

    `custom` marks a kernel the compiler has for a CUSTOM op, whose custom code is `name`.
    """

    name: str
    dtypes: tuple[str, ...]
    lower: Callable[[Graph, Op], Lowered]
    notes: str = ""
    inputs: tuple[int, int] = (1, 1)
    outputs: tuple[int, int] = (1, 1)
    converts: tuple[tuple[str, str], ...] = ()
    fold: Fold | None = None
    # The op is a CUSTOM op of this custom code (TFLite_Detection_PostProcess), not a builtin.
    custom: bool = False
    # The input whose dtype `dtypes` and `converts` describe, where it is not the first
    # (SPLIT's axis and TRANSPOSE_CONV's output shape come before the data).
    data_input: int = 0
    # For an op that keeps state of its own between invocations (the signal library's noise
    # estimate): adds a variable tensor for it and returns its index, or None. The compiler
    # calls it before laying out the state and puts the index in op.options[STATE_OPTION].
    state: Callable[[Graph, Op], int | None] | None = None
    # The weights input that may be int8 under float32 data: a hybrid model's (dynamic-range
    # quantisation), whose kernels read the int8 weights and float activations.
    hybrid: int | None = None

    def signature(self) -> str:
        """The dtypes as `tinyaot ops` and README show them."""
        if self.converts:
            return ", ".join(f"{a}->{b}" for a, b in self.converts)
        return ", ".join(self.dtypes) + (", hybrid" if self.hybrid is not None else "")


def check_counts(graph: Graph, op: Op, opdef: OpDef) -> None:
    """The number of inputs and outputs, whatever their dtypes (checked before folding)."""
    lo, hi = opdef.inputs
    olo, ohi = opdef.outputs
    if not lo <= len(op.inputs) <= hi or not olo <= len(op.outputs) <= ohi:
        ins = f"{lo}" if lo == hi else f"{lo} to {hi}"
        outs = f"{olo}" if olo == ohi else f"{olo} to {ohi}"
        raise op_error(
            graph,
            op,
            f"{len(op.inputs)} inputs and {len(op.outputs)} outputs; supported: {ins} inputs "
            f"and {outs} outputs",
        )
    for i in range(lo):
        if op.inputs[i] is None:
            raise op_error(graph, op, f"input {i} is missing")


def check_dtypes(graph: Graph, op: Op, opdef: OpDef) -> None:
    """The dtypes of the data input and of every output against the op's signature, and
    a hybrid op's int8 weights (symmetric, constant) under float32 data."""
    first = graph.tensor(op.inputs[opdef.data_input])
    if opdef.hybrid is not None and first.dtype == DType.FLOAT32:
        w = graph.tensor(op.inputs[opdef.hybrid])
        if w.dtype == DType.INT8:
            require_const(graph, op, w.index, "hybrid weights")
            require_quant(graph, op, [w.index], per_tensor=False)
            assert w.quant is not None
            if any(z != 0 for z in w.quant.zero_points):
                raise op_error(graph, op, "hybrid int8 weights must be symmetric", w.index)
        elif w.dtype != DType.FLOAT32:
            raise op_error(
                graph,
                op,
                f"weights dtype {w.dtype.short} under float32 data; supported: float32, int8",
                w.index,
            )
    for t in op.outputs:
        out = graph.tensors[t]
        if opdef.converts:
            if (first.dtype.short, out.dtype.short) not in opdef.converts:
                raise op_error(
                    graph,
                    op,
                    f"{first.dtype.short} -> {out.dtype.short} is not supported; "
                    f"supported: {opdef.signature()}",
                    out.index,
                )
            continue
        if first.dtype.short not in opdef.dtypes:
            raise op_error(
                graph,
                op,
                f"dtype {first.dtype.short} is not supported; supported: {opdef.signature()}",
                first.index,
            )
        if out.dtype != first.dtype:
            raise op_error(
                graph,
                op,
                f"output dtype {out.dtype.short} differs from input {first.dtype.short}",
                out.index,
            )


def const_inputs(graph: Graph, op: Op) -> list[np.ndarray] | None:
    """The data of every present input when all are constant (what most folds need)."""
    values = []
    for t in op.inputs:
        if t is None:
            continue
        data = graph.tensors[t].data
        if data is None:
            return None
        values.append(data)
    return values


def scratch_tensor(graph: Graph, op: Op, label: str, dtype: DType, elements: int) -> int:
    """A tensor that only this op's step uses (a kernel's working memory), named for the op:
    the same one when the op is lowered again (a patch stage's stripes) with the same size."""
    name = f"{label} (op {op.index})"
    for t in graph.tensors:
        if t.name == name and t.dtype == dtype and t.shape == (elements,):
            return t.index
    graph.tensors.append(Tensor(len(graph.tensors), name, dtype, (elements,)))
    return len(graph.tensors) - 1


def op_error(graph: Graph, op: Op, message: str, tensor: int | None = None) -> CompileError:
    where = op.describe()
    if tensor is not None:
        t = graph.tensors[tensor]
        where += f", tensor {t.index} '{t.name}'"
    return CompileError(f"{where}: {message}")


def elementwise_io(
    graph: Graph, op: Op
) -> tuple[DType, Tensor, Tensor, list[TensorArg | ConstArray | None]]:
    """A one-input element-wise op: (dtype, in, out, kernel args), sizes checked."""
    inp, out = graph.tensor(op.inputs[0]), graph.tensor(op.outputs[0])
    if inp.num_elements != out.num_elements:
        raise op_error(graph, op, "output size differs from input size", out.index)
    return inp.dtype, inp, out, [TensorArg(inp.index), TensorArg(out.index, writable=True)]


def binary_io(
    graph: Graph, op: Op
) -> tuple[DType, Tensor, Tensor, Tensor, dict[str, object], list[TensorArg | None]]:
    """A broadcasting two-input op: (dtype, a, b, out, struct tinyaot_broadcast fields, args)."""
    a, b = graph.tensor(op.inputs[0]), graph.tensor(op.inputs[1])
    out = graph.tensor(op.outputs[0])
    if b.dtype != a.dtype:
        raise op_error(
            graph, op, f"input dtypes {a.dtype.short} and {b.dtype.short} differ", b.index
        )
    bcast = broadcast_params(graph, op, a, b, out)
    return (
        a.dtype,
        a,
        b,
        out,
        bcast,
        [TensorArg(a.index), TensorArg(b.index), TensorArg(out.index, writable=True)],
    )


def require_quant(graph: Graph, op: Op, tensors: list[int | None], per_tensor: bool = True) -> None:
    for idx in tensors:
        if idx is None:
            continue
        t = graph.tensors[idx]
        if t.quant is None:
            raise op_error(graph, op, "int8 tensor has no quantisation parameters", idx)
        if per_tensor and t.quant.per_channel:
            raise op_error(graph, op, "per-channel quantisation is not supported here", idx)


def require_symmetric(graph: Graph, op: Op, tensors: list[int]) -> None:
    """Quantised with zero point 0, as TFLite Micro requires of most int16 tensors."""
    require_quant(graph, op, tensors)
    for idx in tensors:
        zero_point = graph.tensors[idx].zero_point
        if zero_point != 0:
            raise op_error(
                graph, op, f"int16 zero point {zero_point} is not 0, as TFLM requires", idx
            )


def require_const(
    graph: Graph, op: Op, index: int | None, what: str, dtype: DType | None = None
) -> Tensor:
    t = graph.tensor(index)
    if not t.is_const:
        raise op_error(graph, op, f"the {what} must be a constant tensor", t.index)
    if dtype is not None and t.dtype != dtype:
        # Float ops with int8 weights are TFLite's "hybrid" quantisation.
        raise op_error(
            graph,
            op,
            f"the {what} must be {dtype.short} like the input, not {t.dtype.short}",
            t.index,
        )
    return t


def require_option(
    graph: Graph, op: Op, name: str, allowed: tuple[object, ...], label: str
) -> None:
    value = op.options.get(name)
    if value not in allowed:
        raise op_error(graph, op, f"{label} {value} is not supported (supported: {allowed})")


def int_option(graph: Graph, op: Op, name: str) -> int:
    """A required integer option; missing when the options table is absent or of another op."""
    value = op.options.get(name)
    if not isinstance(value, int):
        raise op_error(
            graph, op, f"the {name} option is missing (no options table, or one of another op)"
        )
    return int(value)


def shape4(t: Tensor) -> tuple[int, int, int, int]:
    """NHWC dims of a tensor of rank <= 4, padded on the left as TFLite does."""
    if len(t.shape) > 4:
        raise CompileError(
            f"tensor {t.index} '{t.name}' has rank {len(t.shape)}; at most 4 is supported"
        )
    s = (1,) * (4 - len(t.shape)) + tuple(t.shape)
    return s[0], s[1], s[2], s[3]


PADDING_SAME, PADDING_VALID = 0, 1


def window_padding(
    graph: Graph, op: Op, in_hw: tuple[int, int], k_hw: tuple[int, int], out_hw: tuple[int, int]
) -> tuple[int, int]:
    """TFLite's ComputePaddingHeightWidth, after checking the stored output size agrees.

    k_hw are the rows and columns a window spans (a dilated window's effective size)."""
    padding = op.options.get("Padding")
    strides = (int_option(graph, op, "StrideH"), int_option(graph, op, "StrideW"))
    if padding not in (PADDING_SAME, PADDING_VALID):
        raise op_error(graph, op, f"padding type {padding} is not supported (SAME or VALID)")
    if min(strides) < 1:
        raise op_error(graph, op, f"stride {strides} must be at least 1")
    pads = []
    for axis, name in enumerate(("height", "width")):
        size, k, stride, out = in_hw[axis], k_hw[axis], strides[axis], out_hw[axis]
        if padding == PADDING_SAME:
            expected = (size + stride - 1) // stride
        else:
            expected = (size - k + stride) // stride
        if expected != out or k < 1:
            raise op_error(
                graph,
                op,
                f"output {name} {out} does not match input {size}, window {k}, stride {stride}",
            )
        pads.append(max(((out - 1) * stride + k - size) // 2, 0))
    return pads[0], pads[1]


# The op option that lowers a windowed op on one tile of a patch stage (patch.py): the
# (pad_h, pad_w) of the tile's windows.
TILE_PADS = "tinyaot_tile_pads"
# The op option that lowers a resize on one stripe of rows: (first output row, first input row,
# input height) of the stripe in the full op, whose output height the size tensor gives.
TILE_ROWS = "tinyaot_tile_rows"
# The op option that holds the border of a PAD folded into a convolution (pad_fold.py):
# (top, bottom, left, right).
FOLDED_PADS = "tinyaot_folded_pads"


def window_extent(k: int, dilation: int) -> int:
    """The input rows or columns that a window axis of k taps, dilation apart, spans."""
    return (k - 1) * dilation + 1


def dilation(graph: Graph, op: Op) -> tuple[int, int]:
    """A convolution's dilation factors (rows, columns), checked."""
    dil = (op.options.get("DilationHFactor", 1), op.options.get("DilationWFactor", 1))
    if not all(isinstance(f, int) and f >= 1 for f in dil):
        raise op_error(graph, op, f"dilation {dil[0]}x{dil[1]} must be at least 1")
    return int(dil[0]), int(dil[1])


def window_dims(
    graph: Graph,
    op: Op,
    inp: Tensor,
    out: Tensor,
    k_hw: tuple[int, int],
    dil: tuple[int, int] | None = None,
    **channels: int,
) -> dict[str, int]:
    """The window geometry of struct tinyaot_conv_dims / tinyaot_pool_dims, padding checked.

    `dil`: the convolution's dilation (struct tinyaot_conv_dims; None for pools, which have
    none). `channels` are the struct's channel fields (in_c and out_c, or channels).
    """
    n, h, w, _ = shape4(inp)
    _, oh, ow, _ = shape4(out)
    dh, dw = dil or (1, 1)
    tile = op.options.get(TILE_PADS)
    if isinstance(tile, tuple):
        # A layer of a patch stage on one tile: its tensors are the tile's windows, its
        # padding relative to them (negative where real rows lie above), checked by patch.py.
        pad_h, pad_w = tile
    else:
        span = (window_extent(k_hw[0], dh), window_extent(k_hw[1], dw))
        # A PAD folded into the op (pad_fold.py): its padding is that of the padded input,
        # plus the PAD's border above and to the left.
        top, bottom, left, right = op.options.get(FOLDED_PADS, (0, 0, 0, 0))  # type: ignore[misc]
        pad_h, pad_w = window_padding(
            graph, op, (h + top + bottom, w + left + right), span, (oh, ow)
        )
        pad_h, pad_w = pad_h + top, pad_w + left
    conv = {} if dil is None else {"dil_h": dh, "dil_w": dw}
    return {
        "batches": n,
        "in_h": h,
        "in_w": w,
        "out_h": oh,
        "out_w": ow,
        **channels,
        "k_h": k_hw[0],
        "k_w": k_hw[1],
        "stride_h": int_option(graph, op, "StrideH"),
        "stride_w": int_option(graph, op, "StrideW"),
        "pad_h": pad_h,
        "pad_w": pad_w,
        **conv,
        "reverse": 0,
    }


def int32_array(values: list[int]) -> ConstArray:
    return ConstArray("int32_t", np.asarray(values, dtype=np.int32))


def bias_arg(
    graph: Graph, op: Op, index: int | None, channels: int, dtype: DType
) -> TensorArg | None:
    """The optional bias: int32 for int8 ops, float for float ops, one per channel."""
    if index is None:
        return None
    t = require_const(graph, op, index, "bias")
    want = DType.INT32 if dtype == DType.INT8 else DType.FLOAT32
    if t.dtype != want or t.num_elements != channels:
        raise op_error(
            graph, op, f"bias must be {channels} values of {want.short}, got {t.dtype.short}", index
        )
    return TensorArg(index)


def broadcast_params(graph: Graph, op: Op, a: Tensor, b: Tensor, out: Tensor) -> dict[str, object]:
    """Output dims and per-input strides (0 where broadcast) for struct tinyaot_broadcast."""
    shape = shape4(out)
    strides = []
    for t in (a, b):
        s = shape4(t)
        st = [0, 0, 0, 0]
        step = 1
        for d in range(3, -1, -1):
            if s[d] == shape[d]:
                st[d] = step if s[d] > 1 else 0
            elif s[d] != 1:
                raise op_error(
                    graph,
                    op,
                    f"shapes {list(a.shape)} and {list(b.shape)} do not broadcast to "
                    f"{list(out.shape)}",
                    t.index,
                )
            step *= s[d]
        strides.append(st)
    for d in range(4):
        if max(shape4(a)[d], shape4(b)[d]) != shape[d]:
            raise op_error(
                graph, op, f"output shape {list(out.shape)} is not the broadcast shape", out.index
            )
    return {"shape": list(shape), "stride1": strides[0], "stride2": strides[1]}
