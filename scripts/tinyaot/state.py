"""State: what a model keeps from one invocation to the next, in a buffer of its own.

Two kinds, both kept in the state buffer and never in the arena:

- variable tensors (`is_variable` in the file: LSTM and SVDF state), which TFLite Micro fills
  with their zero point (int8) or zeros when it allocates and resets them;
- resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, as Keras streaming models
  export them), known by their container and shared name. Each gets a slot tensor, added to the
  graph, shaped as the first value assigned to it (TFLite Micro allocates the variable at the
  first ASSIGN_VARIABLE it prepares and fills it with that value's zero point cast to int8).

CALL_ONCE runs its initialisation subgraph before anything else of the first invoke. The
compiler evaluates that subgraph here (every op folded on constants), so the device only
copies an initial image: the state's bytes after initialisation, which reset writes again.

`resolve` rewrites the graph: READ_VARIABLE and ASSIGN_VARIABLE take the slot tensor instead
of the handle; VAR_HANDLE and CALL_ONCE stay in the graph (the op count) but emit nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .errors import CompileError
from .ir import Graph, Op, Tensor
from .lowering import STATE_OPTION, KernelCall

# State slots are aligned as arena tensors are.
SLOT_ALIGNMENT = 4
# The word after the slots that says whether the buffer holds initialised state.
FLAG_SIZE = 4
STATE_OPS = ("VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE")
# The ops resolve() does all the work of: the compiler emits nothing for them.
RESOLVED = ("VAR_HANDLE", "CALL_ONCE")

# Evaluates one op of an initialisation subgraph at compile time: True when its outputs are
# now constants (the compiler's fold).
Evaluate = Callable[[Graph, Op], bool]


@dataclass
class Slot:
    tensor: int
    name: str
    offset: int
    size: int
    # The slot's bytes after initialisation (and after every reset).
    initial: bytes

    @property
    def fill(self) -> int | None:
        """The byte every initial byte equals, if one does (reset is then a memset)."""
        return self.initial[0] if len(set(self.initial)) == 1 else None


@dataclass
class StateLayout:
    slots: list[Slot] = field(default_factory=list)
    # Bytes of the whole buffer, the flag word included (0: the model has no state).
    size: int = 0
    flag_offset: int = 0

    def offset(self, tensor: int) -> int | None:
        for s in self.slots:
            if s.tensor == tensor:
                return s.offset
        return None


def unresolved(graph: Graph, op: Op) -> KernelCall:
    """The lowering of VAR_HANDLE and CALL_ONCE, which resolve() handles and the compiler
    never lowers: reaching it is a compiler bug."""
    raise AssertionError(f"{op.describe()}: left for lowering, but resolve() handles it")


def _key(op: Op) -> tuple[str, str]:
    def text(v: object) -> str:
        return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v or "")

    return text(op.options.get("Container")), text(op.options.get("SharedName"))


def _handles(graph: Graph, where: str) -> dict[int, tuple[str, str]]:
    """Resource tensor -> its variable's key, from the graph's VAR_HANDLE ops; every use of a
    resource tensor checked."""
    handles: dict[int, tuple[str, str]] = {}
    for op in graph.ops:
        if op.kind == "VAR_HANDLE":
            if op.inputs or len(op.outputs) != 1 or not graph.tensors[op.outputs[0]].resource:
                raise CompileError(
                    f"{where}{op.describe()} must have no inputs and one resource output"
                )
            handles[op.outputs[0]] = _key(op)
    for op in graph.ops:
        if op.kind in ("READ_VARIABLE", "ASSIGN_VARIABLE"):
            want = (1, 1) if op.kind == "READ_VARIABLE" else (2, 0)
            shape = (len(op.inputs), len(op.outputs))
            if shape != want or None in op.inputs or op.inputs[0] not in handles:
                raise CompileError(
                    f"{where}{op.describe()} needs {want[0]} inputs, the first a VAR_HANDLE's "
                    f"output, and {want[1]} outputs"
                )
        resources = [t for t in [*op.inputs, *op.outputs] if t is not None]
        resources = [t for t in resources if graph.tensors[t].resource]
        if op.kind == "CALL_ONCE" and (op.inputs or op.outputs):
            raise CompileError(f"{where}{op.describe()} must have no inputs and no outputs")
        if resources and op.kind not in STATE_OPS:
            t = graph.tensors[resources[0]]
            raise CompileError(
                f"{where}{op.describe()}, tensor {t.index} '{t.name}': a resource handle is "
                "only supported as the variable of READ_VARIABLE and ASSIGN_VARIABLE"
            )
    for t in graph.inputs + graph.outputs:
        if graph.tensors[t].resource:
            raise CompileError(
                f"{where}tensor {t} '{graph.tensors[t].name}': a resource handle cannot be a "
                "graph input or output"
            )
    return handles


def _default_fill(value: Tensor) -> int:
    """TFLite Micro's first fill of a resource variable: the zero point cast to int8."""
    return (value.zero_point & 0xFF) if value.quant is not None else 0


def _variable_fill(t: Tensor) -> int:
    """TFLite Micro's fill of a variable tensor: the zero point for int8, else zeros."""
    return (t.zero_point & 0xFF) if t.dtype.short == "int8" and t.quant is not None else 0


def resolve(graph: Graph, evaluate: Evaluate) -> StateLayout:
    """Give every piece of state a slot; rewrite the graph's state ops (module docstring)."""
    handles = _handles(graph, "")
    calls = [op for op in graph.ops if op.kind == "CALL_ONCE"]
    # The variables, each shaped by the first value assigned to it.
    specs: dict[tuple[str, str], Tensor] = {}
    for op in graph.ops:
        if op.kind == "ASSIGN_VARIABLE":
            specs.setdefault(handles[op.inputs[0]], graph.tensor(op.inputs[1]))  # type: ignore[index]
    inits: dict[int, tuple[Graph, dict[int, tuple[str, str]]]] = {}
    for op in calls:
        index = op.options["InitSubgraphIndex"]
        assert isinstance(index, int)
        sub = graph.subgraphs[index]
        sub_handles = _handles(sub, f"subgraph {index}: ")
        inits[op.index] = (sub, sub_handles)
        for sop in sub.ops:
            if sop.kind == "ASSIGN_VARIABLE":
                key = sub_handles[sop.inputs[0]]  # type: ignore[index]
                specs.setdefault(key, sub.tensor(sop.inputs[1]))
    for op in graph.ops:
        if op.kind == "READ_VARIABLE" and handles[op.inputs[0]] not in specs:  # type: ignore[index]
            raise CompileError(
                f"{op.describe()} reads resource variable '{handles[op.inputs[0]][1]}', which "  # type: ignore[index]
                "no ASSIGN_VARIABLE ever writes"
            )
    image: dict[tuple[str, str], bytearray] = {
        key: bytearray([_default_fill(v)] * v.nbytes) for key, v in specs.items()
    }
    # CALL_ONCE runs its subgraph at the first invoke, before any variable is touched.
    first_use = next((op for op in graph.ops if op.kind in STATE_OPS[1:3]), None)
    for op in calls:
        if first_use is not None and first_use.index < op.index:
            raise CompileError(
                f"{op.describe()} comes after {first_use.describe()}; only a CALL_ONCE that "
                "runs before every READ_VARIABLE and ASSIGN_VARIABLE is supported"
            )
        sub, sub_handles = inits[op.index]
        _run_init(sub, sub_handles, op, image, evaluate)

    # The main graph's state ops on slot tensors.
    slots: dict[tuple[str, str], int] = {}
    for key, value in specs.items():
        slots[key] = len(graph.tensors)
        graph.tensors.append(
            Tensor(
                index=len(graph.tensors),
                name=key[1] or f"variable{len(slots)}",
                dtype=value.dtype,
                shape=value.shape,
                quant=value.quant,
                variable=True,
            )
        )
    for op in graph.ops:
        if op.kind in ("READ_VARIABLE", "ASSIGN_VARIABLE"):
            key = handles[op.inputs[0]]  # type: ignore[index]
            slot = graph.tensors[slots[key]]
            other = graph.tensor(op.outputs[0] if op.kind == "READ_VARIABLE" else op.inputs[1])
            if other.nbytes != slot.nbytes:
                raise CompileError(
                    f"{op.describe()}, tensor {other.index} '{other.name}': {other.nbytes} bytes, "
                    f"but resource variable '{key[1]}' holds {slot.nbytes}"
                )
            op.inputs[0] = slot.index

    # The layout: every variable tensor an op uses, in tensor order.
    used = {t for op in graph.ops for t in [*op.inputs, *op.outputs] if t is not None}
    used |= {op.options[STATE_OPTION] for op in graph.ops if STATE_OPTION in op.options}  # type: ignore[misc]
    used -= {t for op in graph.ops if op.kind in RESOLVED for t in op.outputs}
    layout = StateLayout()
    offset = 0
    initial_of = {slots[k]: bytes(v) for k, v in image.items()}
    for t in graph.tensors:
        if not t.variable or t.index not in used:
            continue
        if t.index in graph.inputs or t.index in graph.outputs:
            raise CompileError(
                f"tensor {t.index} '{t.name}' is a variable and a graph input or output, "
                "which is not supported"
            )
        initial = initial_of.get(t.index, bytes([_variable_fill(t)]) * t.nbytes)
        layout.slots.append(Slot(t.index, t.name, offset, t.nbytes, initial))
        offset = -(-(offset + t.nbytes) // SLOT_ALIGNMENT) * SLOT_ALIGNMENT
    if layout.slots:
        layout.flag_offset = offset
        layout.size = offset + FLAG_SIZE
    return layout


def _run_init(
    sub: Graph,
    handles: dict[int, tuple[str, str]],
    call: Op,
    image: dict[tuple[str, str], bytearray],
    evaluate: Evaluate,
) -> None:
    """The initialisation subgraph, op by op, at compile time: its assignments into image."""
    index = call.options["InitSubgraphIndex"]
    for op in sub.ops:
        where = f"subgraph {index} (CALL_ONCE's initialisation), {op.describe()}"
        if op.kind == "VAR_HANDLE":
            continue
        if op.kind == "CALL_ONCE":
            raise CompileError(f"{where}: a nested CALL_ONCE is not supported")
        if op.kind == "READ_VARIABLE":
            key = handles[op.inputs[0]]  # type: ignore[index]
            out = sub.tensor(op.outputs[0])
            if key not in image or len(image[key]) != out.nbytes:
                raise CompileError(f"{where}: reads a variable the main graph does not hold")
            out.data = np.frombuffer(bytes(image[key]), out.dtype.numpy).reshape(out.shape)
            continue
        if op.kind == "ASSIGN_VARIABLE":
            key = handles[op.inputs[0]]  # type: ignore[index]
            value = sub.tensor(op.inputs[1])
            if value.data is None:
                raise CompileError(
                    f"{where}: the value assigned is not a constant; only initialisation "
                    "subgraphs the compiler can evaluate are supported"
                )
            if key not in image:
                continue  # a variable the main graph never reads or writes
            data = value.data.astype(value.dtype.numpy.newbyteorder("<")).tobytes()
            if len(data) != len(image[key]):
                raise CompileError(
                    f"{where}: assigns {len(data)} bytes to resource variable '{key[1]}', "
                    f"which holds {len(image[key])}"
                )
            image[key][:] = data
            continue
        if not evaluate(sub, op):
            raise CompileError(
                f"{where}: cannot be evaluated at compile time (an input is not constant); "
                "only initialisation subgraphs of constants are supported"
            )
