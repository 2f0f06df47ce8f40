"""Reads a .tflite flatbuffer (through the `tflite` package) into the IR.

Every field the compiler will ever look at is read here, inside one guard, so a
damaged file fails here with a clear message instead of deep inside a pass.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tflite
from tflite.utils import BUILTIN_OPCODE2NAME

from .errors import CompileError
from .ir import DType, Graph, Op, Quant, Tensor

_BAD_SCALE = "{} has a quantisation scale that is not a positive number"

_TFLITE_DTYPES = {
    tflite.TensorType.FLOAT32: DType.FLOAT32,
    tflite.TensorType.INT8: DType.INT8,
    tflite.TensorType.UINT8: DType.UINT8,
    tflite.TensorType.INT16: DType.INT16,
    tflite.TensorType.INT32: DType.INT32,
    tflite.TensorType.INT64: DType.INT64,
    tflite.TensorType.UINT32: DType.UINT32,
    tflite.TensorType.UINT64: DType.UINT64,
    tflite.TensorType.BOOL: DType.BOOL,
}
_TFLITE_DTYPE_NAMES = {
    v: k for k, v in vars(tflite.TensorType).items() if not k.startswith("_") and isinstance(v, int)
}
_OPTION_CLASSES = {
    v: k
    for k, v in vars(tflite.BuiltinOptions).items()
    if not k.startswith("_") and isinstance(v, int)
}
# Ops that write no tensor: they act on state (state.py).
_NO_OUTPUTS = ("ASSIGN_VARIABLE", "CALL_ONCE")
# Shapes beyond this many elements cannot be meant for a microcontroller, and
# their byte counts would overflow the 32-bit size fields of the runtime.
MAX_ELEMENTS = 1 << 28


def load(path: str | Path) -> Graph:
    """Parse the model at `path`; raise CompileError on anything we cannot use."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CompileError(f"cannot read model file '{path}': {exc.strerror or exc}") from None
    return parse(data, str(path))


def parse(data: bytes, origin: str = "<bytes>") -> Graph:
    if len(data) < 8 or data[4:8] != b"TFL3":
        raise CompileError(f"'{origin}' is not a TensorFlow Lite model (no TFL3 file identifier)")
    try:
        return _Reader(data).graph()
    except CompileError:
        raise
    except Exception as exc:  # noqa: BLE001 - any parse failure of a damaged flatbuffer
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CompileError(f"'{origin}' is a damaged or truncated model file ({detail})") from None


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.model = tflite.Model.GetRootAsModel(data, 0)
        # Tensor index -> its dtype's name, for the subgraph being read.
        self.unsupported: dict[int, str] = {}

    def graph(self) -> Graph:
        model = self.model
        count = model.SubgraphsLength()
        if count == 0:
            raise CompileError("the model has 0 subgraphs; it needs one to compile")
        graph = self._subgraph(0)
        if not graph.inputs or not graph.outputs:
            raise CompileError("the model has no inputs or no outputs")
        # The other subgraphs compile only as CALL_ONCE's initialisation subgraphs, which the
        # compiler evaluates (state.py); control flow (IF, WHILE) calls them otherwise.
        called = {
            op.options.get("InitSubgraphIndex"): op for op in graph.ops if op.kind == "CALL_ONCE"
        }
        for op in called.values():
            index = op.options.get("InitSubgraphIndex")
            if not isinstance(index, int) or not 0 < index < count:
                raise CompileError(
                    f"{op.describe()} calls subgraph {index}, which is not one of the model's "
                    f"other {count - 1} subgraphs"
                )
        for i in range(1, count):
            if i not in called:
                raise CompileError(
                    f"the model has {count} subgraphs; subgraph {i} is not the initialisation "
                    "subgraph of a CALL_ONCE (control flow such as IF and WHILE is not supported)"
                )
            try:
                graph.subgraphs[i] = self._subgraph(i)
            except CompileError as exc:
                raise CompileError(f"subgraph {i}: {exc}") from None
            if graph.subgraphs[i].inputs or graph.subgraphs[i].outputs:
                raise CompileError(
                    f"subgraph {i}, the initialisation subgraph of {called[i].describe()}, has "
                    "inputs or outputs; CALL_ONCE's subgraph takes and gives none"
                )
        return graph

    def _subgraph(self, index: int) -> Graph:
        sg = self.model.Subgraphs(index)
        self.unsupported = {}
        num_tensors = sg.TensorsLength()
        # An op's intermediates (an int8 LSTM's gate scales) are quantisation records of shape
        # [0], not data: no op reads or writes them.
        records = {
            int(v)
            for i in range(sg.OperatorsLength())
            if sg.Operators(i).IntermediatesLength()
            for v in sg.Operators(i).IntermediatesAsNumpy().tolist()
        }
        tensors = [self._tensor(sg.Tensors(i), i, i in records) for i in range(num_tensors)]

        def tensor_list(values: np.ndarray | int, what: str) -> list[int]:
            out = []
            for v in (
                np.atleast_1d(np.asarray(values)).tolist() if not isinstance(values, int) else []
            ):
                if not 0 <= v < num_tensors:
                    raise CompileError(f"{what} refers to tensor {v}, which does not exist")
                out.append(v)
            return out

        inputs = tensor_list(sg.InputsAsNumpy(), "a graph input")
        outputs = tensor_list(sg.OutputsAsNumpy(), "a graph output")
        ops = []
        for i in range(sg.OperatorsLength()):
            ops.append(self._op(sg.Operators(i), i, num_tensors))
        graph = Graph(tensors=tensors, ops=ops, inputs=inputs, outputs=outputs)
        self._check_dtypes(graph)
        _check_order(graph)
        return graph

    def _check_dtypes(self, graph: Graph) -> None:
        supported = "supported: " + ", ".join(d.name for d in DType)
        for op in graph.ops:
            for t in [*op.inputs, *op.outputs]:
                if t is not None and t in self.unsupported:
                    raise CompileError(
                        f"{op.describe()}, tensor {t} '{graph.tensors[t].name}': "
                        f"dtype {self.unsupported[t]} is not supported; {supported}"
                    )
        for t in graph.inputs + graph.outputs:
            if t in self.unsupported:
                raise CompileError(
                    f"tensor {t} '{graph.tensors[t].name}': dtype {self.unsupported[t]} "
                    f"is not supported; {supported}"
                )

    def _tensor(self, t: tflite.Tensor, index: int, record: bool = False) -> Tensor:
        name = (t.Name() or b"").decode("utf-8", errors="replace")
        where = f"tensor {index} '{name}'"
        ttype = t.Type()
        if ttype not in _TFLITE_DTYPES:
            # Reported with the op that uses it, once the ops are read.
            self.unsupported[index] = _TFLITE_DTYPE_NAMES.get(ttype, f"type {ttype}")
        dtype = _TFLITE_DTYPES.get(ttype, DType.INT8)
        shape = tuple(int(d) for d in (t.ShapeAsNumpy() if t.ShapeLength() else []))
        signature = [int(d) for d in t.ShapeSignatureAsNumpy()] if t.ShapeSignatureLength() else []
        # A dimension left open (-1) in the signature is how converters mark "any batch" (or
        # any length); like TFLM we take the concrete shape the file stores for it.
        if any(d < 0 for d in shape) or (signature and len(signature) != len(shape)):
            raise CompileError(
                f"{where} has a dynamic or unknown shape {signature or list(shape)}; "
                "only static shapes can be compiled"
            )
        if any(d == 0 for d in shape) and not record:
            raise CompileError(f"{where} has an empty shape {list(shape)}")
        elements = 1
        for d in shape:
            elements *= d
            if elements > MAX_ELEMENTS:
                raise CompileError(
                    f"{where} has shape {list(shape)}, too large for a microcontroller"
                )
        if t.Sparsity() is not None:
            raise CompileError(f"{where} is sparse; sparse tensors are not supported")
        if ttype == tflite.TensorType.RESOURCE:
            # A resource variable's handle: no data of its own (state.py gives it a slot).
            self.unsupported.pop(index, None)
            return Tensor(index=index, name=name, dtype=DType.INT32, shape=shape, resource=True)
        tensor = Tensor(index=index, name=name, dtype=dtype, shape=shape)
        if index in self.unsupported:
            return tensor
        tensor.quant = self._quant(t, where)
        tensor.data = self._buffer(t.Buffer(), tensor, where)
        if tensor.quant is not None and 0.0 in tensor.quant.scales:
            # The converter quantises a constant of zeros (an LSTM's initial state) with scale
            # 0: it is its zero point in any scale, and TFLite Micro's Prepare takes the 0 to a
            # multiplier of 0. Any other tensor needs a positive scale to mean something.
            zero = np.array(tensor.quant.zero_points).reshape(-1)
            if tensor.data is None or len(zero) != 1 or np.any(tensor.data != zero[0]):
                raise CompileError(_BAD_SCALE.format(where))
        if t.IsVariable():
            # TFLite Micro never reads a variable tensor's buffer: it fills the tensor with its
            # zero point (int8) or zeros when it allocates and resets it.
            if tensor.data is not None:
                raise CompileError(
                    f"{where} is a variable tensor with initial data, which TFLite Micro "
                    "ignores; only variable tensors without data are supported"
                )
            tensor.variable = True
        return tensor

    def _quant(self, t: tflite.Tensor, where: str) -> Quant | None:
        q = t.Quantization()
        if q is None or q.ScaleLength() == 0:
            return None
        if q.DetailsType() != 0:
            raise CompileError(f"{where} uses custom quantisation details, which are not supported")
        scales = tuple(float(s) for s in q.ScaleAsNumpy())
        zps = (
            tuple(int(z) for z in q.ZeroPointAsNumpy())
            if q.ZeroPointLength()
            else (0,) * len(scales)
        )
        if len(zps) != len(scales):
            raise CompileError(f"{where} has {len(scales)} scales but {len(zps)} zero points")
        if not all(np.isfinite(s) and s >= 0 for s in scales):
            raise CompileError(_BAD_SCALE.format(where))
        # Zero points are emitted as integers of the tensor's type (int32 for float and bool).
        dtype = _TFLITE_DTYPES.get(t.Type(), DType.INT32)
        limits = np.iinfo(dtype.numpy if dtype.numpy.kind in "iu" else np.int32)
        bad = [z for z in zps if not limits.min <= z <= limits.max]
        if bad:
            raise CompileError(
                f"{where} has zero point {bad[0]}, outside the range of {limits.dtype}"
            )
        return Quant(scales=scales, zero_points=zps, axis=int(q.QuantizedDimension()))

    def _buffer(self, index: int, tensor: Tensor, where: str) -> np.ndarray | None:
        if index == 0:
            return None
        if not 0 <= index < self.model.BuffersLength():
            raise CompileError(f"{where} refers to buffer {index}, which does not exist")
        buf = self.model.Buffers(index)
        if buf.Offset() > 1:
            start, size = int(buf.Offset()), int(buf.Size())
            if start + size > len(self.data):
                raise CompileError(f"{where}: its data lies past the end of the file")
            raw = self.data[start : start + size]
        elif buf.DataLength() == 0:
            return None
        else:
            raw = buf.DataAsNumpy().tobytes()
        if len(raw) != tensor.nbytes:
            raise CompileError(
                f"{where} has {len(raw)} bytes of data but its shape {list(tensor.shape)} "
                f"and dtype {tensor.dtype.short} need {tensor.nbytes}"
            )
        data = np.frombuffer(raw, dtype=tensor.dtype.numpy.newbyteorder("<")).reshape(tensor.shape)
        if data.dtype.kind == "f" and not np.isfinite(data).all():
            raise CompileError(f"{where} holds NaN or infinite values, which are not supported")
        return data

    def _op(self, o: tflite.Operator, index: int, num_tensors: int) -> Op:
        code_index = o.OpcodeIndex()
        if not 0 <= code_index < self.model.OperatorCodesLength():
            raise CompileError(f"op {index} uses operator code {code_index}, which does not exist")
        oc = self.model.OperatorCodes(code_index)
        code = max(int(oc.BuiltinCode()), int(oc.DeprecatedBuiltinCode()))
        options: dict[str, object]
        if code == tflite.BuiltinOperator.CUSTOM:
            # A custom op is known by its custom code; the compiler decides whether it has a
            # kernel for it (its own, or one the user declares).
            kind = (oc.CustomCode() or b"").decode("utf-8", errors="replace")
            if not kind:
                raise CompileError(f"op {index} is a custom op without a custom code")
            raw = o.CustomOptionsAsNumpy() if o.CustomOptionsLength() else None
            options = {"custom": True, "custom_options": b"" if raw is None else raw.tobytes()}
        else:
            kind = BUILTIN_OPCODE2NAME.get(code)
            if kind is None:
                raise CompileError(f"op {index} has unknown builtin operator code {code}")
            options = _options(o)
        ins: list[int | None] = []
        for v in o.InputsAsNumpy().tolist() if o.InputsLength() else []:
            if v == -1:
                ins.append(None)
            elif 0 <= v < num_tensors:
                ins.append(v)
            else:
                raise CompileError(
                    f"op {index} ({kind}) has input tensor {v}, which does not exist"
                )
        outs: list[int] = []
        for v in o.OutputsAsNumpy().tolist() if o.OutputsLength() else []:
            if not 0 <= v < num_tensors:
                raise CompileError(
                    f"op {index} ({kind}) has output tensor {v}, which does not exist"
                )
            outs.append(v)
        if not outs and kind not in _NO_OUTPUTS:
            raise CompileError(f"op {index} ({kind}) has no outputs")
        return Op(index=index, kind=kind, inputs=ins, outputs=outs, options=options)


def _options(o: tflite.Operator) -> dict[str, object]:
    """Every field of the op's builtin options table, by its schema name."""
    cls_name = _OPTION_CLASSES.get(o.BuiltinOptionsType())
    table = o.BuiltinOptions()
    if not cls_name or cls_name == "NONE" or table is None:
        return {}
    opts = getattr(tflite, cls_name)()
    opts.Init(table.Bytes, table.Pos)
    values: dict[str, object] = {}
    for attr in dir(opts):
        if attr.startswith("_") or attr in ("Init",) or attr.startswith("GetRootAs"):
            continue
        if attr.endswith(("AsNumpy", "IsNone", "Length", "BufferHasIdentifier")):
            continue
        if hasattr(opts, attr + "AsNumpy"):
            arr = getattr(opts, attr + "AsNumpy")()
            values[attr] = [] if isinstance(arr, int) else [int(x) for x in arr]
            continue
        try:
            values[attr] = getattr(opts, attr)()
        except TypeError:
            continue
    return values


def _check_order(graph: Graph) -> None:
    """TFLite runs ops in file order: every input must exist before its op runs."""
    ready = set(graph.inputs) | {t.index for t in graph.tensors if t.is_const or t.variable}
    for op in graph.ops:
        for t in op.inputs:
            if t is not None and t not in ready:
                raise CompileError(
                    f"{op.describe()} reads tensor {t} '{graph.tensors[t].name}' before any op "
                    "writes it (a cycle or an out-of-order graph)"
                )
        for t in op.outputs:
            if graph.tensors[t].is_const:
                raise CompileError(f"{op.describe()} writes to constant tensor {t}")
            ready.add(t)
    for t in graph.outputs:
        if t not in ready:
            raise CompileError(
                f"graph output tensor {t} '{graph.tensors[t].name}' is never written"
            )
