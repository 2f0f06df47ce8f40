"""Writes .tflite flatbuffers from a plain Python description, hostile values included.

Nothing here checks what it is given: a tensor may point at a missing buffer, an op
at a missing tensor or operator code, a shape may be negative or absurdly large.
That is the point: tests use it to make the broken files a compiler must reject.
The builder functions are the ones the `tflite` package generates from the schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import flatbuffers
import numpy as np
import tflite

INT8 = tflite.TensorType.INT8
INT32 = tflite.TensorType.INT32
FLOAT32 = tflite.TensorType.FLOAT32
OPS = tflite.BuiltinOperator
ACT = tflite.ActivationFunctionType
PADDING = tflite.Padding


@dataclass
class Buffer:
    """Inline `data`, or (for models over 2 GB) an `offset`/`size` pair into the file."""

    data: bytes | None = None
    offset: int | None = None
    size: int | None = None


@dataclass
class Tensor:
    name: str | bytes | None
    shape: list[int] | None
    dtype: int = INT8
    buffer: int = 0
    scale: list[float] | None = None
    zero_point: list[int] | None = None
    quantized_dimension: int = 0
    shape_signature: list[int] | None = None
    is_variable: bool = False


@dataclass
class OpCode:
    builtin: int
    custom: str | None = None
    # Older files keep the code in this int8 field; None writes min(builtin, 127).
    deprecated: int | None = None
    version: int = 1


@dataclass
class Operator:
    opcode_index: int
    inputs: list[int]
    outputs: list[int]
    # The options table by schema name (e.g. "FullyConnectedOptions") and its fields
    # (e.g. {"FusedActivationFunction": 4}); the union type is looked up from the name
    # unless options_type overrides it.
    options_name: str | None = None
    options: dict[str, int | bool | str] = field(default_factory=dict)
    options_type: int | None = None
    # A CUSTOM op's options, as the file stores them (usually a flexbuffer map).
    custom_options: bytes | None = None


@dataclass
class SubGraph:
    tensors: list[Tensor]
    operators: list[Operator]
    inputs: list[int]
    outputs: list[int]
    name: str = "main"


@dataclass
class Model:
    subgraphs: list[SubGraph]
    opcodes: list[OpCode]
    # Buffer 0 must be the empty sentinel, as the converter writes it.
    buffers: list[Buffer] = field(default_factory=lambda: [Buffer()])
    version: int = 3
    file_identifier: bytes = b"TFL3"
    description: str = "tflite_builder"


def _int_vector(b: flatbuffers.Builder, values: list[int], dtype: str = "<i4") -> int:
    return b.CreateNumpyVector(np.asarray(values, dtype=dtype))


def _table_vector(b: flatbuffers.Builder, start: object, offsets: list[int]) -> int:
    start(b, len(offsets))
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _string(b: flatbuffers.Builder, s: str | bytes | None) -> int | None:
    return None if s is None else b.CreateString(s)


def _tensor(b: flatbuffers.Builder, t: Tensor) -> int:
    name = _string(b, t.name)
    shape = _int_vector(b, t.shape) if t.shape is not None else None
    sig = _int_vector(b, t.shape_signature) if t.shape_signature is not None else None
    quant = None
    if t.scale is not None:
        scale = _int_vector(b, t.scale, "<f4")
        zps = _int_vector(
            b, t.zero_point if t.zero_point is not None else [0] * len(t.scale), "<i8"
        )
        tflite.QuantizationParametersStart(b)
        tflite.QuantizationParametersAddScale(b, scale)
        tflite.QuantizationParametersAddZeroPoint(b, zps)
        tflite.QuantizationParametersAddQuantizedDimension(b, t.quantized_dimension)
        quant = tflite.QuantizationParametersEnd(b)
    tflite.TensorStart(b)
    if shape is not None:
        tflite.TensorAddShape(b, shape)
    if sig is not None:
        tflite.TensorAddShapeSignature(b, sig)
    tflite.TensorAddType(b, t.dtype)
    tflite.TensorAddBuffer(b, t.buffer)
    if name is not None:
        tflite.TensorAddName(b, name)
    if quant is not None:
        tflite.TensorAddQuantization(b, quant)
    if t.is_variable:
        tflite.TensorAddIsVariable(b, True)
    return tflite.TensorEnd(b)


def _options(b: flatbuffers.Builder, name: str, fields: dict[str, int | bool | str]) -> int:
    # Strings (VAR_HANDLE's shared name) are written before the table that points at them.
    strings = {k: b.CreateString(v) for k, v in fields.items() if isinstance(v, str)}
    getattr(tflite, f"{name}Start")(b)
    for key, value in fields.items():
        getattr(tflite, f"{name}Add{key}")(b, strings.get(key, value))
    return getattr(tflite, f"{name}End")(b)


def _operator(b: flatbuffers.Builder, o: Operator) -> int:
    ins = _int_vector(b, o.inputs)
    outs = _int_vector(b, o.outputs)
    opts = _options(b, o.options_name, o.options) if o.options_name else None
    custom = None if o.custom_options is None else _int_vector(b, list(o.custom_options), "u1")
    tflite.OperatorStart(b)
    tflite.OperatorAddOpcodeIndex(b, o.opcode_index)
    tflite.OperatorAddInputs(b, ins)
    tflite.OperatorAddOutputs(b, outs)
    if opts is not None:
        assert o.options_name is not None
        kind = o.options_type
        if kind is None:
            kind = getattr(tflite.BuiltinOptions, o.options_name)
        tflite.OperatorAddBuiltinOptionsType(b, kind)
        tflite.OperatorAddBuiltinOptions(b, opts)
    if custom is not None:
        tflite.OperatorAddCustomOptions(b, custom)
    return tflite.OperatorEnd(b)


def _subgraph(b: flatbuffers.Builder, sg: SubGraph) -> int:
    tensors = _table_vector(
        b, tflite.SubGraphStartTensorsVector, [_tensor(b, t) for t in sg.tensors]
    )
    ops = _table_vector(
        b, tflite.SubGraphStartOperatorsVector, [_operator(b, o) for o in sg.operators]
    )
    ins = _int_vector(b, sg.inputs)
    outs = _int_vector(b, sg.outputs)
    name = b.CreateString(sg.name)
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensors)
    tflite.SubGraphAddInputs(b, ins)
    tflite.SubGraphAddOutputs(b, outs)
    tflite.SubGraphAddOperators(b, ops)
    tflite.SubGraphAddName(b, name)
    return tflite.SubGraphEnd(b)


def _opcode(b: flatbuffers.Builder, c: OpCode) -> int:
    custom = _string(b, c.custom)
    tflite.OperatorCodeStart(b)
    deprecated = c.deprecated if c.deprecated is not None else min(c.builtin, 127)
    tflite.OperatorCodeAddDeprecatedBuiltinCode(b, deprecated)
    tflite.OperatorCodeAddBuiltinCode(b, c.builtin)
    if custom is not None:
        tflite.OperatorCodeAddCustomCode(b, custom)
    tflite.OperatorCodeAddVersion(b, c.version)
    return tflite.OperatorCodeEnd(b)


def _buffer(b: flatbuffers.Builder, buf: Buffer) -> int:
    data = None
    if buf.data is not None:
        # TFLM reads weights in place, so keep them aligned as the converter does.
        b.StartVector(1, len(buf.data), 16)
        b.head = b.head - len(buf.data)
        b.Bytes[b.head : b.head + len(buf.data)] = buf.data
        data = b.EndVector()
    tflite.BufferStart(b)
    if data is not None:
        tflite.BufferAddData(b, data)
    if buf.offset is not None:
        tflite.BufferAddOffset(b, buf.offset)
    if buf.size is not None:
        tflite.BufferAddSize(b, buf.size)
    return tflite.BufferEnd(b)


def build(model: Model) -> bytes:
    """The flatbuffer bytes of `model`, exactly as described."""
    b = flatbuffers.Builder(1024)
    buffers = _table_vector(
        b, tflite.ModelStartBuffersVector, [_buffer(b, x) for x in model.buffers]
    )
    subgraphs = _table_vector(
        b, tflite.ModelStartSubgraphsVector, [_subgraph(b, s) for s in model.subgraphs]
    )
    codes = _table_vector(
        b, tflite.ModelStartOperatorCodesVector, [_opcode(b, c) for c in model.opcodes]
    )
    desc = b.CreateString(model.description)
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, model.version)
    tflite.ModelAddOperatorCodes(b, codes)
    tflite.ModelAddSubgraphs(b, subgraphs)
    tflite.ModelAddDescription(b, desc)
    tflite.ModelAddBuffers(b, buffers)
    root = tflite.ModelEnd(b)
    if len(model.file_identifier) == 4:
        b.Finish(root, file_identifier=model.file_identifier)
    else:
        b.Finish(root)
    return bytes(b.Output())


def int8_bytes(values: np.ndarray | list[int]) -> bytes:
    return np.asarray(values, dtype=np.int8).tobytes()


def int32_bytes(values: np.ndarray | list[int]) -> bytes:
    return np.asarray(values, dtype="<i4").tobytes()


def single_op(tensors: list[Tensor], op: Operator, code: int, buffers: list[Buffer]) -> bytes:
    """A model of one operator over these tensors: the first input of the op is the model's
    input, its first output the model's output."""
    subgraph = SubGraph(tensors, [op], [op.inputs[0]], [op.outputs[0]])
    return build(Model(subgraphs=[subgraph], opcodes=[OpCode(code)], buffers=buffers))


def fully_connected(
    units: int = 4, depth: int = 8, activation: int = ACT.NONE, seed: int = 0, float32: bool = False
) -> Model:
    """A sane model with one FULLY_CONNECTED, int8 or float32: tensors input 0, weights 1,
    bias 2, output 3."""
    rng = np.random.default_rng(seed)
    if float32:
        weights = rng.uniform(-1, 1, size=(units, depth)).astype("<f4").tobytes()
        bias = rng.uniform(-1, 1, size=units).astype("<f4").tobytes()
        tensors = [
            Tensor("input", [1, depth], FLOAT32),
            Tensor("weights", [units, depth], FLOAT32, 1),
            Tensor("bias", [units], FLOAT32, 2),
            Tensor("output", [1, units], FLOAT32),
        ]
    else:
        weights = int8_bytes(rng.integers(-127, 128, size=(units, depth)))
        bias = int32_bytes(rng.integers(-2000, 2000, size=units))
        in_scale, w_scale = 0.05, 0.02
        tensors = [
            Tensor("input", [1, depth], INT8, 0, [in_scale], [-3]),
            Tensor("weights", [units, depth], INT8, 1, [w_scale], [0]),
            Tensor("bias", [units], INT32, 2, [in_scale * w_scale], [0]),
            Tensor("output", [1, units], INT8, 0, [0.1], [2]),
        ]
    options = {"FusedActivationFunction": activation}
    return Model(
        subgraphs=[
            SubGraph(
                tensors=tensors,
                operators=[Operator(0, [0, 1, 2], [3], "FullyConnectedOptions", options)],
                inputs=[0],
                outputs=[3],
            )
        ],
        opcodes=[OpCode(OPS.FULLY_CONNECTED)],
        buffers=[Buffer(), Buffer(weights), Buffer(bias)],
    )


def _window_op(
    opcode: int, options_name: str, options: dict[str, int], tensors: list[Tensor], seed: int
) -> Model:
    """One windowed int8 op: input 0, filter 1 (random int8), bias 2 (random int32), output 3."""
    rng = np.random.default_rng(seed)
    return Model(
        subgraphs=[
            SubGraph(
                tensors=tensors,
                operators=[Operator(0, [0, 1, 2], [3], options_name, options)],
                inputs=[0],
                outputs=[3],
            )
        ],
        opcodes=[OpCode(opcode)],
        buffers=[
            Buffer(),
            Buffer(int8_bytes(rng.integers(-127, 128, size=tensors[1].shape))),
            Buffer(int32_bytes(rng.integers(-500, 500, size=tensors[2].shape))),
        ],
    )


def conv2d(
    activation: int = ACT.NONE, padding: int = PADDING.VALID, dilation: int = 1, size: int = 6
) -> Model:
    """A sane int8 model with one 3x3 CONV_2D of 2 channels into 3: input 0, filter 1,
    bias 2, output 3."""
    out = size if padding == PADDING.SAME else size - 2 * dilation
    options = {
        "Padding": padding,
        "StrideH": 1,
        "StrideW": 1,
        "DilationHFactor": dilation,
        "DilationWFactor": dilation,
        "FusedActivationFunction": activation,
    }
    tensors = [
        Tensor("input", [1, size, size, 2], INT8, 0, [0.05], [1]),
        Tensor("filter", [3, 3, 3, 2], INT8, 1, [0.02, 0.03, 0.01], [0, 0, 0]),
        Tensor("bias", [3], INT32, 2, [0.001, 0.0015, 0.0005], [0, 0, 0]),
        Tensor("output", [1, out, out, 3], INT8, 0, [0.1], [-1]),
    ]
    return _window_op(OPS.CONV_2D, "Conv2DOptions", options, tensors, 1)


def depthwise_conv2d(activation: int = ACT.NONE, size: int = 7, channels: int = 4) -> Model:
    """A sane int8 model with one 3x3 SAME DEPTHWISE_CONV_2D, depth multiplier 1: input 0,
    filter 1, bias 2, output 3. Its output scale leaves room beyond RELU6's range, so a fused
    RELU6 clamps inside int8."""
    c = channels
    options = {
        "Padding": PADDING.SAME,
        "StrideH": 1,
        "StrideW": 1,
        "DepthMultiplier": 1,
        "DilationHFactor": 1,
        "DilationWFactor": 1,
        "FusedActivationFunction": activation,
    }
    tensors = [
        Tensor("input", [1, size, size, c], INT8, 0, [0.05], [1]),
        Tensor("filter", [1, 3, 3, c], INT8, 1, [0.02] * c, [0] * c, 3),
        Tensor("bias", [c], INT32, 2, [0.001] * c, [0] * c),
        Tensor("output", [1, size, size, c], INT8, 0, [0.1], [-1]),
    ]
    return _window_op(OPS.DEPTHWISE_CONV_2D, "DepthwiseConv2DOptions", options, tensors, 2)


def add_chain(names: list[str | bytes | None]) -> Model:
    """Int8 ADDs over 4 inputs: t4 = t0 + t1, t5 = t2 + t3, t6 = t4 + t5, all three outputs.

    `names` gives the 7 tensor names (inputs t0..t3, outputs t4..t6).
    """
    assert len(names) == 7
    scales = [0.05, 0.07, 0.04, 0.06, 0.1, 0.09, 0.2]
    zps = [-2, 5, 0, 3, -1, 2, 0]
    tensors = [Tensor(names[i], [1, 4, 3], INT8, 0, [scales[i]], [zps[i]]) for i in range(7)]
    add = {"FusedActivationFunction": ACT.NONE}
    return Model(
        subgraphs=[
            SubGraph(
                tensors=tensors,
                operators=[
                    Operator(0, [0, 1], [4], "AddOptions", add),
                    Operator(0, [2, 3], [5], "AddOptions", add),
                    Operator(0, [4, 5], [6], "AddOptions", add),
                ],
                inputs=[0, 1, 2, 3],
                outputs=[4, 5, 6],
            )
        ],
        opcodes=[OpCode(OPS.ADD)],
    )


def max_pool2d(int8: bool, activation: int, shape: list[int]) -> bytes:
    """One 3x3 SAME stride-2 MAX_POOL_2D with a fused activation. The int8 scale puts 6.0 at
    59, inside int8, so RELU6 clamps at both ends."""
    dtype = INT8 if int8 else FLOAT32
    quant = ([0.1], [-1]) if int8 else (None, None)
    n, h, w, c = shape
    options = {
        "Padding": PADDING.SAME,
        "StrideW": 2,
        "StrideH": 2,
        "FilterWidth": 3,
        "FilterHeight": 3,
        "FusedActivationFunction": activation,
    }
    tensors = [
        Tensor("input", shape, dtype, 0, *quant),
        Tensor("output", [n, (h + 1) // 2, (w + 1) // 2, c], dtype, 0, *quant),
    ]
    op = Operator(0, [0], [1], "Pool2DOptions", options)
    return single_op(tensors, op, OPS.MAX_POOL_2D, [Buffer()])
