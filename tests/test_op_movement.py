"""The data movement family against TFLite Micro: STRIDED_SLICE, SLICE, SPLIT, SPLIT_V,
UNPACK, PACK, REVERSE_V2, TRANSPOSE, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND,
SPACE_TO_BATCH_ND, BROADCAST_TO, FILL, GATHER, GATHER_ND, EMBEDDING_LOOKUP, MIRROR_PAD,
SQUEEZE, EXPAND_DIMS, and the ops that always fold: SHAPE, BROADCAST_ARGS and ZEROS_LIKE.

Each model holds several cases of several ops as separate outputs, so one build covers many
(the family's tests share few builds). The int8, int16, int32 and bool models are the float32 ones
with their data tensors retyped (int8 all with one scale and zero point, as the converter
makes them for these ops): the ops never look at the values, and the converter leaves some
of them (UNPACK) in float32.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tensorflow as tf
import tflite
import tflite_builder as tb
import tfmodels
from harness import check_against_tflm
from host import runner
from opcheck import check_inputs, load, op_kinds, write_model
from reference import Reference
from tinyaot import codegen
from tinyaot.compiler import Options, compile_graph, lower_op
from tinyaot.errors import CompileError
from tinyaot.ir import DType
from tinyaot.lowering import Alias


def slicing(x, y):
    return (
        x[:, 1:3, ::2, :],  # begin and end, a stride of 2
        x[:, ::-1, 1, 1:],  # a negative stride, a shrunk axis, an end mask
        x[:, -3:-1, -1:, :2],  # negative indices
        x[:, 3:0:-2, -9:9, ::-1],  # clamped indices, negative strides with bounds
        tf.slice(y, [1, 0, 2], [2, -1, 3]),
        *tf.split(y, 2, axis=2),
        *tf.split(y, [1, 3, 2], axis=-1),
        *tf.unstack(y, axis=1),
        tf.stack([y[:, 0], y[:, 2], y[:, 3]], axis=2),
        tf.reverse(x, [1, 2]),
        tf.reverse(y, [-1]),
    )


SLICING_SHAPES = [(1, 4, 5, 3), (3, 4, 6)]
SLICING_OPS = {"STRIDED_SLICE", "SLICE", "SPLIT", "SPLIT_V", "UNPACK", "PACK", "REVERSE_V2"}


INT8_QUANT = (0.05, -5)


def _retyped(data: bytes, type_name: str, quant: tuple[float, int] | None = None) -> bytes:
    """The model with every non-constant float32 tensor made `type_name`."""
    model = tflite.Model.GetRootAsModel(data, 0)
    graph = model.Subgraphs(0)
    for i in range(graph.TensorsLength()):
        t = graph.Tensors(i)
        if t.Type() == tflite.TensorType.FLOAT32 and model.Buffers(t.Buffer()).DataLength() == 0:
            data = tfmodels.retype_tensor(data, i, type_name, quant)
    return data


def _models(root, fn, shapes, ints: bool) -> dict[str, object]:
    """The float32 model of `fn` and its int8 (and int16, int32) retypings, by dtype name."""
    float32 = tfmodels.convert(fn, shapes, int8=False)
    models = {
        "float32": write_model(float32, root, "float32"),
        "int8": write_model(_retyped(float32, "INT8", INT8_QUANT), root, "int8"),
    }
    if ints:
        models["int16"] = write_model(_retyped(float32, "INT16", (0.05, 0)), root, "int16")
        models["int32"] = write_model(_retyped(float32, "INT32"), root, "int32")
    return models


@pytest.fixture(scope="module")
def slicing_models(tmp_path_factory):
    return _models(tmp_path_factory.mktemp("slicing"), slicing, SLICING_SHAPES, ints=True)


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16", "int32"])
def test_slicing_ops_match_tflm(slicing_models, dtype, tmp_path):
    path = slicing_models[dtype]
    graph = load(path)
    assert SLICING_OPS <= {op.kind for op in graph.ops}
    for op in graph.ops:
        assert graph.tensors[op.outputs[0]].dtype.short == dtype, op.describe()
    assert check_against_tflm(path, tmp_path, sets=2).exact


def _bytes_model(x):
    return (
        x[::-1, 1:],
        tf.slice(x, [1, 0], [2, 2]),
        tf.broadcast_to(x[:1], [2, 3, 4]),
        tf.reverse(x, [0, 1]),
    )


def test_bool_moves_match_tflm(tmp_path):
    """TFLM slices, broadcasts and reverses bool tensors (a byte each)."""
    data = tfmodels.convert(_bytes_model, [(3, 4)], int8=False)
    path = write_model(_retyped(data, "BOOL"), tmp_path)
    graph = load(path)
    assert {op.kind for op in graph.ops} == {
        "BROADCAST_TO",
        "SLICE",
        "STRIDED_SLICE",
        "REVERSE_V2",
    }
    assert graph.tensors[graph.inputs[0]].dtype.short == "bool"
    rng = np.random.default_rng(2)
    sets = [[rng.integers(0, 2, size=(3, 4)).astype(bool)] for _ in range(2)]
    result = check_inputs(path, tmp_path, sets)
    np.testing.assert_array_equal(result.outputs[0][1], sets[0][0][1:3, :2])
    np.testing.assert_array_equal(result.outputs[0][3], sets[0][0][::-1, ::-1])


# int32 has float32's size, which the layout models cover.
@pytest.mark.parametrize("dtype", ["UINT8", "INT16", "INT64"])
def test_broadcast_to_takes_any_dtype(dtype, tmp_path):
    data = tfmodels.convert(lambda x: tf.broadcast_to(x, [2, 3, 4]), [(3, 1)], int8=False)
    path = write_model(_retyped(data, dtype), tmp_path)
    assert op_kinds(path) == ["BROADCAST_TO"]
    assert check_against_tflm(path, tmp_path, sets=2).exact


def layout(x, z, w):
    return (
        tf.transpose(x, [0, 3, 1, 2]),
        tf.transpose(tf.reshape(z, [2, 1, 3, 2, 4]), [4, 2, 0, 3, 1]),
        tf.nn.depth_to_space(w, 2),
        tf.nn.space_to_depth(x, 2),
        tf.broadcast_to(x[:, :1, :, :], [3, 4, 6, 3]),
        tf.fill([2, 3], z[0, 0, 1]),
        tf.gather(x, [2, 0, 2, 3], axis=1),
        tf.gather(z, [[1, 0], [3, 3]], axis=-1),
        tf.gather_nd(z, [[0, 1], [5, 0], [0, 0]]),
        tf.gather_nd(w, [[[1, 1, 2]], [[0, 0, 1]]]),
        tf.space_to_batch_nd(x, [2, 3], [[0, 0], [0, 0]]),
        tf.compat.v1.batch_to_space_nd(w, [2, 1], [[2, 0], [0, 0]]),
        tf.space_to_batch_nd(z, [2], [[0, 0]]),
        tf.compat.v1.batch_to_space_nd(z, [2], [[0, 2]]),
    )


LAYOUT_SHAPES = [(1, 4, 6, 3), (6, 2, 4), (2, 2, 3, 8)]
LAYOUT_OPS = {
    "TRANSPOSE",
    "DEPTH_TO_SPACE",
    "SPACE_TO_DEPTH",
    "BROADCAST_TO",
    "FILL",
    "GATHER",
    "GATHER_ND",
    "SPACE_TO_BATCH_ND",
    "BATCH_TO_SPACE_ND",
}


@pytest.fixture(scope="module")
def layout_models(tmp_path_factory):
    # TFLM's DEPTH_TO_SPACE, SPACE_TO_DEPTH and GATHER take neither int16 nor int32.
    return _models(tmp_path_factory.mktemp("layout"), layout, LAYOUT_SHAPES, ints=False)


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_layout_ops_match_tflm(layout_models, dtype, tmp_path):
    path = layout_models[dtype]
    graph = load(path)
    assert LAYOUT_OPS <= {op.kind for op in graph.ops}
    assert {graph.tensors[op.outputs[0]].dtype.short for op in graph.ops} == {dtype}
    assert check_against_tflm(path, tmp_path, sets=2).exact


EMBEDDINGS = np.arange(-6, 6, dtype=np.int8).reshape(6, 2) * 7


def _runtime_gather_model(int8: bool = True) -> bytes:
    """GATHER of a [4, 3] table input by an int32 index input [5], axis 0, and an
    EMBEDDING_LOOKUP of a constant [6, 2] table by the same indices."""
    dtype, scale, zp = tb.FLOAT32, None, None
    if int8:
        dtype, scale, zp = tb.INT8, [INT8_QUANT[0]], [INT8_QUANT[1]]
    embeddings = EMBEDDINGS if int8 else EMBEDDINGS.astype("<f4") / 8
    tensors = [
        tb.Tensor("table", [4, 3], dtype, 0, scale, zp),
        tb.Tensor("indices", [5], tb.INT32),
        tb.Tensor("rows", [5, 3], dtype, 0, scale, zp),
        tb.Tensor("embeddings", [6, 2], dtype, 1, scale, zp),
        tb.Tensor("embedded", [5, 2], dtype, 0, scale, zp),
    ]
    ops = [
        tb.Operator(0, [0, 1], [2], "GatherOptions", {"Axis": 0}),
        tb.Operator(1, [1, 3], [4]),
    ]
    return tb.build(
        tb.Model(
            subgraphs=[tb.SubGraph(tensors, ops, inputs=[0, 1], outputs=[2, 4])],
            opcodes=[tb.OpCode(tb.OPS.GATHER), tb.OpCode(tb.OPS.EMBEDDING_LOOKUP)],
            buffers=[tb.Buffer(), tb.Buffer(embeddings.tobytes())],
        )
    )


def test_gather_and_embedding_lookup_with_runtime_indices(tmp_path):
    path = write_model(_runtime_gather_model(), tmp_path)
    assert op_kinds(path) == ["GATHER", "EMBEDDING_LOOKUP"]
    table = np.arange(-60, 60, 10, dtype=np.int8).reshape(4, 3)
    sets = [[table, np.array(i, dtype=np.int32)] for i in ([3, 0, 1, 1, 2], [0, 0, 3, 2, 1])]
    result = check_inputs(path, tmp_path, sets)
    np.testing.assert_array_equal(result.outputs[0][0], table[[3, 0, 1, 1, 2]])
    np.testing.assert_array_equal(result.outputs[0][1], EMBEDDINGS[[3, 0, 1, 1, 2]])
    # Out of range, TFLM's GATHER reads past the table and EMBEDDING_LOOKUP fails the invoke;
    # ours writes rows of zeros.
    exe = tmp_path / "chosen" / "m_host"  # what check_inputs built
    indices = np.array([4, -1, 2, 1 << 30, 0], dtype=np.int32)
    got = np.frombuffer(runner.run(exe, [table.tobytes(), indices.tobytes()]), np.int8)
    rows = np.zeros((5, 3), dtype=np.int8)
    rows[[2, 4]] = table[[2, 0]]
    embedded = np.zeros((5, 2), dtype=np.int8)
    embedded[[0, 2, 4]] = EMBEDDINGS[[4, 2, 0]]
    np.testing.assert_array_equal(got[:15].reshape(5, 3), rows)
    np.testing.assert_array_equal(got[15:].reshape(5, 2), embedded)


def test_float32_gather_and_embedding_lookup_with_runtime_indices(tmp_path):
    path = write_model(_runtime_gather_model(int8=False), tmp_path)
    table = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    result = check_inputs(path, tmp_path, [[table, np.array([2, 3, 0, 0, 1], dtype=np.int32)]])
    assert result.exact
    np.testing.assert_array_equal(result.outputs[0][1], EMBEDDINGS[[2, 3, 0, 0, 1]] / 8)


def test_hybrid_embedding_lookup_is_rejected(tmp_path):
    graph = load(write_model(_runtime_gather_model(), tmp_path))
    out = graph.tensors[graph.ops[1].outputs[0]]
    out.dtype, out.quant = DType.FLOAT32, None
    with pytest.raises(CompileError, match="output dtype float32 differs from input int8"):
        compile_graph(graph, Options("m"), "m.tflite")


def _views_model(int8: bool) -> bytes:
    """x [2, 1, 3] -> SQUEEZE -> TRANSPOSE -> EXPAND_DIMS(axis -2) -> [3, 1, 2], and a
    ZEROS_LIKE of x: the converter turns the views into RESHAPE and folds ZEROS_LIKE itself."""
    dtype, scale, zp = (
        (tb.INT8, [INT8_QUANT[0]], [INT8_QUANT[1]]) if int8 else (tb.FLOAT32, None, None)
    )

    def data(name, shape):
        return tb.Tensor(name, shape, dtype, 0, scale, zp)

    tensors = [
        data("x", [2, 1, 3]),
        data("squeezed", [2, 3]),
        tb.Tensor("perm", [2], tb.INT32, 1),
        data("transposed", [3, 2]),
        tb.Tensor("axis", [], tb.INT32, 2),
        data("expanded", [3, 1, 2]),
        data("zeros", [2, 1, 3]),
    ]
    ops = [
        tb.Operator(0, [0], [1]),
        tb.Operator(1, [1, 2], [3]),
        tb.Operator(2, [3, 4], [5]),
        tb.Operator(3, [0], [6]),
    ]
    codes = [tb.OPS.SQUEEZE, tb.OPS.TRANSPOSE, tb.OPS.EXPAND_DIMS, tb.OPS.ZEROS_LIKE]
    return tb.build(
        tb.Model(
            subgraphs=[tb.SubGraph(tensors, ops, inputs=[0], outputs=[5])],
            opcodes=[tb.OpCode(c) for c in codes],
            buffers=[
                tb.Buffer(),
                tb.Buffer(tb.int32_bytes([1, 0])),
                tb.Buffer(tb.int32_bytes([-2])),
            ],
        )
    )


@pytest.mark.parametrize("int8", [False, True], ids=["float32", "int8"])
def test_views_and_zeros_like(int8, tmp_path):
    path = write_model(_views_model(int8), tmp_path)
    graph = load(path)
    compiled = compile_graph(graph, Options("m"), "m.tflite")
    assert [s.call.function for s in compiled.steps] == ["tinyaot_copy"]
    zeros = graph.tensors[graph.ops[3].outputs[0]]
    assert zeros.data is not None and not zeros.data.any()
    if int8:
        assert check_against_tflm(path, tmp_path, sets=2).exact


def test_model_of_views_only(tmp_path):
    """x [2, 1, 3] -> SQUEEZE -> EXPAND_DIMS(axis -1) -> [2, 3, 1]: no op has a kernel call,
    and the body that is left still builds warning-free and gives TFLite Micro's bytes."""
    q = ([INT8_QUANT[0]], [INT8_QUANT[1]])
    tensors = [
        tb.Tensor("x", [2, 1, 3], tb.INT8, 0, *q),
        tb.Tensor("squeezed", [2, 3], tb.INT8, 0, *q),
        tb.Tensor("axis", [], tb.INT32, 1),
        tb.Tensor("expanded", [2, 3, 1], tb.INT8, 0, *q),
    ]
    ops = [tb.Operator(0, [0], [1]), tb.Operator(1, [1, 2], [3])]
    model = tb.Model(
        subgraphs=[tb.SubGraph(tensors, ops, inputs=[0], outputs=[3])],
        opcodes=[tb.OpCode(tb.OPS.SQUEEZE), tb.OpCode(tb.OPS.EXPAND_DIMS)],
        buffers=[tb.Buffer(), tb.Buffer(tb.int32_bytes([-1]))],
    )
    path = write_model(tb.build(model), tmp_path)
    assert compile_graph(load(path), Options("m"), "m.tflite").steps == []
    assert check_against_tflm(path, tmp_path, sets=2).exact


@pytest.mark.parametrize("which", ["slicing", "layout"])
def test_folds_match_tflm(slicing_models, layout_models, which):
    """Every op folded at compile time (constant data) gives TFLM's outputs."""
    path = slicing_models["int32"] if which == "slicing" else layout_models["float32"]
    ref = Reference(path)
    inputs = ref.random_inputs(np.random.default_rng(1))
    want = ref.run(inputs)
    graph = load(path)
    for t, x in zip(graph.inputs, inputs, strict=True):
        graph.tensors[t].data = x
    for op in graph.ops:
        lowered = lower_op(graph, op)
        if isinstance(lowered, Alias):  # RESHAPE: the compiler's views of constants fold
            out = graph.tensors[op.outputs[0]]
            out.data = graph.tensors[lowered.source].data.reshape(out.shape)
        else:
            assert lowered is None, op.describe()
    for t, w in zip(graph.outputs, want, strict=True):
        np.testing.assert_array_equal(graph.tensors[t].data, w)


def keras_dynamic_batch(x):
    y = tf.keras.layers.Reshape((20, 3))(x) * 2.0
    return tf.keras.layers.Flatten()(y)


def test_keras_shape_arithmetic_folds_away(tmp_path):
    """A batch left open makes the converter compute reshape targets at run time from
    SHAPE; all of it folds, and only the MUL reaches the generated code."""
    path = write_model(
        tfmodels.convert(keras_dynamic_batch, [(None, 4, 5, 3)], int8=False), tmp_path
    )
    kinds = op_kinds(path)
    assert {"SHAPE", "STRIDED_SLICE", "PACK", "RESHAPE"} <= set(kinds)
    compiled = compile_graph(load(path), Options("m"), "m.tflite")
    assert [s.call.function for s in compiled.steps] == ["tinyaot_mul_f32"]
    source = codegen.generate(compiled)["m.c"]
    # No int32 constant is left for the device (shape tables of the ports aside).
    assert "int32_t m_w" not in source and "int32_t m_c" not in source
    assert check_against_tflm(path, tmp_path, sets=2).exact


def test_shape_of_another_dtype_is_rejected(tmp_path):
    data = tfmodels.convert(keras_dynamic_batch, [(None, 4, 5, 3)], int8=False)
    graph = load(write_model(data, tmp_path))
    op = _op(graph, "SHAPE")
    graph.tensors[op.outputs[0]].dtype = DType.FLOAT32
    with pytest.raises(CompileError, match="a float32 output is not supported; SHAPE only folds"):
        lower_op(graph, op)


def test_broadcast_args_folds(tmp_path):
    def fn(x, y):
        return tf.broadcast_to(x, tf.broadcast_dynamic_shape(tf.shape(x), tf.shape(y)))

    graph = load(write_model(tfmodels.convert(fn, [(None, 1, 3), (None, 4, 1)], False), tmp_path))
    args = _op(graph, "BROADCAST_ARGS")
    for op in graph.ops[: graph.ops.index(args)]:
        assert lower_op(graph, op) is None
    a = graph.tensors[args.inputs[0]]
    assert lower_op(graph, args) is None
    assert graph.tensors[args.outputs[0]].data.tolist() == [1, 4, 3]
    a.data = np.array([1, 2, 3], dtype=np.int32)
    with pytest.raises(CompileError, match=r"shapes \[1, 2, 3\] and \[1, 4, 1\] do not broadcast"):
        lower_op(graph, args)


def _op(graph, kind):
    return next(op for op in graph.ops if op.kind == kind)


def _new_axis(graph):
    _op(graph, "STRIDED_SLICE").options["NewAxisMask"] = 2


def _strided_slice_5d(graph):
    graph.tensors[_op(graph, "STRIDED_SLICE").inputs[0]].shape = (1, 1, 4, 5, 3)


def _slice_past_end(graph):
    size = graph.tensors[_op(graph, "SLICE").inputs[2]]
    size.data = np.array([3, -1, 3], dtype=np.int32)


def _unequal_split(graph):
    op = _op(graph, "SPLIT")
    graph.tensors[op.outputs[0]].shape = (3, 4, 2)
    graph.tensors[op.outputs[1]].shape = (3, 4, 4)


def _split_v_sizes(graph):
    sizes = graph.tensors[_op(graph, "SPLIT_V").inputs[1]]
    sizes.data = np.array([2, 2, 2], dtype=np.int32)


def _unpack_uint8(graph):
    op = _op(graph, "UNPACK")
    for t in [op.inputs[0], *op.outputs]:
        graph.tensors[t].dtype = DType.UINT8


def _pack_quant(graph):
    t = graph.tensors[_op(graph, "PACK").inputs[1]]
    assert t.quant is not None
    t.quant = dataclasses.replace(t.quant, zero_points=(t.zero_point + 1,))


def _transpose_6d(graph):
    op = _op(graph, "TRANSPOSE")
    graph.tensors[op.inputs[0]].shape = (1, 1, 4, 6, 3, 1)


def _depth_not_divisible(graph):
    op = _op(graph, "DEPTH_TO_SPACE")
    graph.tensors[op.inputs[0]].shape = (2, 2, 3, 6)


def _space_not_divisible(graph):
    op = _op(graph, "SPACE_TO_DEPTH")
    graph.tensors[op.inputs[0]].shape = (1, 4, 5, 3)


def _not_broadcastable(graph):
    op = _op(graph, "BROADCAST_TO")
    graph.tensors[op.inputs[0]].shape = (1, 2, 6, 3)


def _fill_vector(graph):
    op = _op(graph, "FILL")
    graph.tensors[op.inputs[1]].shape = (1,)


def _gather_out_of_range(graph):
    idx = graph.tensors[_op(graph, "GATHER").inputs[1]]
    idx.data = np.array([2, 0, 4, 3], dtype=np.int32)


def _gather_nd_runtime(graph):
    graph.tensors[_op(graph, "GATHER_ND").inputs[1]].data = None


def _space_to_batch_padded(graph):
    pads = graph.tensors[_op(graph, "SPACE_TO_BATCH_ND").inputs[2]]
    pads.data = np.array([[0, 0], [1, 1]], dtype=np.int32)


def _batch_to_space_crops(graph):
    crops = graph.tensors[_op(graph, "BATCH_TO_SPACE_ND").inputs[2]]
    crops.data = np.array([[1, 1], [0, 0]], dtype=np.int32)


def _reverse_apart(graph):
    axes = graph.tensors[_op(graph, "REVERSE_V2").inputs[1]]
    axes.data = np.array([0, 2], dtype=np.int32)


REJECTED = {
    "strided_slice_new_axis": ("STRIDED_SLICE", _new_axis, "NewAxisMask 2 is not supported"),
    "strided_slice_5d": ("STRIDED_SLICE", _strided_slice_5d, r"rank 5 is not supported \(1 to 4\)"),
    "reverse_apart": ("REVERSE_V2", _reverse_apart, "supported: neighbouring axes"),
    "slice_past_end": ("SLICE", _slice_past_end, "outside 0..3"),
    "split_unequal": ("SPLIT", _unequal_split, r"output sizes \[2, 4\] .* are not equal"),
    "split_v_sizes": ("SPLIT_V", _split_v_sizes, "does not match the outputs"),
    "unpack_uint8": ("UNPACK", _unpack_uint8, "dtype uint8 is not supported; supported: int8"),
    "pack_quantisation": ("PACK", _pack_quant, "must have the input's scale"),
    "transpose_6d": ("TRANSPOSE", _transpose_6d, r"input rank 6 is not supported \(1 to 5\)"),
    "depth_to_space": ("DEPTH_TO_SPACE", _depth_not_divisible, "depth divisible by block"),
    "space_to_depth": ("SPACE_TO_DEPTH", _space_not_divisible, "width divisible by the block"),
    "broadcast_to": ("BROADCAST_TO", _not_broadcastable, "does not broadcast to"),
    "fill_vector": ("FILL", _fill_vector, "the value must be a scalar"),
    "gather_range": ("GATHER", _gather_out_of_range, "index 4 is outside axis 1 of size 4"),
    "gather_nd_runtime": ("GATHER_ND", _gather_nd_runtime, "indices must be a constant"),
    "space_to_batch_padded": (
        "SPACE_TO_BATCH_ND",
        _space_to_batch_padded,
        r"paddings \[0, 0, 1, 1\] are not supported",
    ),
    "batch_to_space_crops": (
        "BATCH_TO_SPACE_ND",
        _batch_to_space_crops,
        "supported: multiples of the block 2x1",
    ),
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_unsupported_cases_are_rejected(slicing_models, layout_models, case):
    kind, mutate, message = REJECTED[case]
    models = slicing_models if kind in SLICING_OPS else layout_models
    graph = load(models["int8"])
    mutate(graph)
    with pytest.raises(CompileError, match=message):
        lower_op(graph, _op(graph, kind))


def test_views_reject_what_they_cannot_view(tmp_path):
    graph = load(write_model(_views_model(False), tmp_path))
    graph.ops[0].options["SqueezeDims"] = [2]
    with pytest.raises(CompileError, match="axis 2 has size 3, not 1"):
        lower_op(graph, graph.ops[0])
    graph.tensors[graph.ops[2].outputs[0]].shape = (1, 3, 2, 1)
    with pytest.raises(CompileError, match=r"differs from the computed \[3, 1, 2\]"):
        lower_op(graph, graph.ops[2])
