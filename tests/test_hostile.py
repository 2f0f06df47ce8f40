"""Hand-written hostile models: each is one `error:` line naming the problem, exit 2 and
no output; hostile tensor names become valid, unique C identifiers that build and run."""

from __future__ import annotations

import copy
import re
import subprocess
from collections.abc import Callable

import inprocess
import pytest
import tflite_builder as tb
from harness import REPO, check_against_tflm, compile_model, tinyaot
from host import runner

CRT_INCLUDE = REPO / "crt" / "include"


def fc(edit: Callable[[tb.Model, tb.SubGraph], None], **kwargs: object) -> Callable[[], bytes]:
    """The sane one-FULLY_CONNECTED model (input 0, weights 1, bias 2, output 3), edited."""

    def make() -> bytes:
        model = tb.fully_connected(**kwargs)  # type: ignore[arg-type]
        edit(model, model.subgraphs[0])
        return tb.build(model)

    return make


def conv(**kwargs: object) -> Callable[[], bytes]:
    return lambda: tb.build(tb.conv2d(**kwargs))  # type: ignore[arg-type]


def setattrs(obj: object, **values: object) -> None:
    for k, v in values.items():
        setattr(obj, k, v)


def cycle(m: tb.Model, sg: tb.SubGraph) -> None:
    """op 0 reads tensor 4, which only op 1 (run later) writes from op 0's output."""
    sg.tensors.append(tb.Tensor("loop", [1, 8], tb.INT8, 0, [0.05], [0]))
    sg.tensors.append(tb.Tensor("w2", [8, 4], tb.INT8, 3, [0.02], [0]))
    m.buffers.append(tb.Buffer(bytes(32)))
    sg.operators[0].inputs = [4, 1, 2]
    sg.operators.append(tb.Operator(0, [3, 5, -1], [4], "FullyConnectedOptions", {}))


def no_options(m: tb.Model, sg: tb.SubGraph) -> None:
    sg.operators[0].options_name = None


def conv_edit(edit: Callable[[tb.Model, tb.SubGraph], None]) -> Callable[[], bytes]:
    def make() -> bytes:
        model = tb.conv2d()
        edit(model, model.subgraphs[0])
        return tb.build(model)

    return make


# case -> (model bytes, what the one error line must contain)
HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "file_identifier": (
        fc(lambda m, sg: setattrs(m, file_identifier=b"TFL2")),
        "is not a TensorFlow Lite model (no TFL3 file identifier)",
    ),
    "no_identifier": (fc(lambda m, sg: setattrs(m, file_identifier=b"")), "no TFL3"),
    "buffer_offset_past_end": (
        fc(lambda m, sg: m.buffers.__setitem__(1, tb.Buffer(offset=1 << 20, size=32))),
        "tensor 1 'weights': its data lies past the end of the file",
    ),
    "buffer_size_past_end": (
        fc(lambda m, sg: m.buffers.__setitem__(1, tb.Buffer(offset=16, size=1 << 40))),
        "tensor 1 'weights': its data lies past the end of the file",
    ),
    "buffer_offset_wraps": (
        fc(lambda m, sg: m.buffers.__setitem__(1, tb.Buffer(offset=(1 << 64) - 8, size=16))),
        "tensor 1 'weights': its data lies past the end of the file",
    ),
    "buffer_index_missing": (
        fc(lambda m, sg: setattrs(sg.tensors[1], buffer=50)),
        "tensor 1 'weights' refers to buffer 50, which does not exist",
    ),
    "buffer_size_disagrees": (
        fc(lambda m, sg: setattrs(m.buffers[1], data=bytes(31))),
        "tensor 1 'weights' has 31 bytes of data but its shape [4, 8] and dtype int8 need 32",
    ),
    "buffer_dtype_disagrees": (
        fc(lambda m, sg: setattrs(sg.tensors[2], dtype=tb.INT8)),
        "tensor 2 'bias' has 16 bytes of data but its shape [4] and dtype int8 need 4",
    ),
    "negative_dimension": (
        fc(lambda m, sg: setattrs(sg.tensors[0], shape=[1, -8])),
        "tensor 0 'input' has a dynamic or unknown shape [1, -8]",
    ),
    "huge_dimension": (
        fc(lambda m, sg: setattrs(sg.tensors[0], shape=[1, (1 << 31) - 1])),
        "tensor 0 'input' has shape [1, 2147483647], too large for a microcontroller",
    ),
    "bytes_overflow_32_bits": (
        fc(lambda m, sg: setattrs(sg.tensors[3], shape=[1 << 15, 1 << 15], dtype=tb.FLOAT32)),
        "tensor 3 'output' has shape [32768, 32768], too large for a microcontroller",
    ),
    "elements_overflow_64_bits": (
        fc(lambda m, sg: setattrs(sg.tensors[3], shape=[1 << 30] * 3)),
        "tensor 3 'output' has shape [1073741824, 1073741824, 1073741824], too large",
    ),
    "zero_dimension": (
        fc(lambda m, sg: setattrs(sg.tensors[3], shape=[0, 4])),
        "tensor 3 'output' has an empty shape [0, 4]",
    ),
    "op_input_missing": (
        fc(lambda m, sg: setattrs(sg.operators[0], inputs=[0, 1, 99])),
        "op 0 (FULLY_CONNECTED) has input tensor 99, which does not exist",
    ),
    "op_input_negative": (
        fc(lambda m, sg: setattrs(sg.operators[0], inputs=[0, 1, -7])),
        "op 0 (FULLY_CONNECTED) has input tensor -7, which does not exist",
    ),
    "op_output_missing": (
        fc(lambda m, sg: setattrs(sg.operators[0], outputs=[4])),
        "op 0 (FULLY_CONNECTED) has output tensor 4, which does not exist",
    ),
    "op_required_input_omitted": (
        fc(lambda m, sg: setattrs(sg.operators[0], inputs=[-1, 1, 2])),
        "op 0 (FULLY_CONNECTED): input 0 is missing",
    ),
    "graph_input_missing": (
        fc(lambda m, sg: setattrs(sg, inputs=[42])),
        "a graph input refers to tensor 42, which does not exist",
    ),
    "graph_output_missing": (
        fc(lambda m, sg: setattrs(sg, outputs=[-1])),
        "a graph output refers to tensor -1, which does not exist",
    ),
    "graph_output_never_written": (
        fc(lambda m, sg: setattrs(sg.operators[0], outputs=[0])),
        "graph output tensor 3 'output' is never written",
    ),
    "op_writes_constant": (
        fc(lambda m, sg: setattrs(sg.operators[0], outputs=[1])),
        "op 0 (FULLY_CONNECTED) writes to constant tensor 1",
    ),
    "cycle": (
        fc(cycle),
        "op 0 (FULLY_CONNECTED) reads tensor 4 'loop' before any op writes it (a cycle",
    ),
    "opcode_index_past_table": (
        fc(lambda m, sg: setattrs(sg.operators[0], opcode_index=1)),
        "op 0 uses operator code 1, which does not exist",
    ),
    "opcode_index_max": (
        fc(lambda m, sg: setattrs(sg.operators[0], opcode_index=(1 << 32) - 1)),
        "op 0 uses operator code 4294967295, which does not exist",
    ),
    "builtin_code_past_enum": (
        fc(lambda m, sg: m.opcodes.__setitem__(0, tb.OpCode(4000, deprecated=127))),
        "op 0 has unknown builtin operator code 4000",
    ),
    "builtin_code_negative": (
        fc(lambda m, sg: m.opcodes.__setitem__(0, tb.OpCode(-3, deprecated=-3))),
        "op 0 has unknown builtin operator code -3",
    ),
    "builtin_code_unsupported": (
        # SIGN: TFLite Micro has no kernel for it (tinyaot.tflm_ops), so the compiler never will.
        fc(lambda m, sg: m.opcodes.__setitem__(0, tb.OpCode(tb.OPS.SIGN))),
        "op 0 (SIGN) writing tensor 3 'output' is not supported; supported ops: ABS",
    ),
    "custom_op": (
        fc(lambda m, sg: m.opcodes.__setitem__(0, tb.OpCode(tb.OPS.CUSTOM, custom="Sneaky"))),
        "op 0 is the custom op 'Sneaky' (writing tensor 3 'output'), which the compiler has",
    ),
    "two_subgraphs": (
        fc(lambda m, sg: m.subgraphs.append(copy.deepcopy(sg))),
        "the model has 2 subgraphs; subgraph 1 is not the initialisation subgraph of a CALL_ONCE",
    ),
    "no_subgraphs": (
        fc(lambda m, sg: m.subgraphs.clear()),
        "the model has 0 subgraphs",
    ),
    "no_outputs": (
        fc(lambda m, sg: setattrs(sg, outputs=[])),
        "the model has no inputs or no outputs",
    ),
    "dynamic_dimension": (
        fc(lambda m, sg: setattrs(sg.tensors[0], shape=[-1, 8])),
        "tensor 0 'input' has a dynamic or unknown shape [-1, 8]",
    ),
    "dynamic_signature": (
        fc(lambda m, sg: setattrs(sg.tensors[0], shape_signature=[1, -1, 8])),
        "tensor 0 'input' has a dynamic or unknown shape [1, -1, 8]",
    ),
    "unsupported_dtype": (
        fc(lambda m, sg: setattrs(sg.tensors[0], dtype=tflite_type("BOOL"))),
        "op 0 (FULLY_CONNECTED), tensor 0 'input': dtype bool is not supported",
    ),
    "unknown_dtype": (
        fc(lambda m, sg: setattrs(sg.tensors[3], dtype=100)),
        "op 0 (FULLY_CONNECTED), tensor 3 'output': dtype type 100 is not supported",
    ),
    "hybrid_weights": (
        fc(
            lambda m, sg: (
                setattrs(sg.tensors[1], dtype=tb.INT8),
                setattrs(m.buffers[1], data=bytes(32)),
            ),
            float32=True,
        ),
        # Hybrid weights carry a scale: without one they are refused, not read as scale 1.
        "op 0 (FULLY_CONNECTED), tensor 1 'weights': int8 tensor has no quantisation parameters",
    ),
    "nan_weights": (
        fc(
            lambda m, sg: setattrs(m.buffers[1], data=b"\x00\x00\xc0\x7f" * 32),
            float32=True,
        ),
        "tensor 1 'weights' holds NaN or infinite values",
    ),
    "scale_not_positive": (
        fc(lambda m, sg: setattrs(sg.tensors[3], scale=[-0.5])),
        "tensor 3 'output' has a quantisation scale that is not a positive number",
    ),
    # Scale 0 is taken only on a constant that is all zero point (as the converter writes a
    # zero constant); weights of other values, or an activation, would mean nothing.
    "scale_zero_output": (
        fc(lambda m, sg: setattrs(sg.tensors[3], scale=[0.0])),
        "tensor 3 'output' has a quantisation scale that is not a positive number",
    ),
    "scale_zero_weights": (
        fc(
            lambda m, sg: (
                setattrs(sg.tensors[1], scale=[0.0]),
                setattrs(m.buffers[1], data=bytes(31) + b"\x01"),
            )
        ),
        "tensor 1 'weights' has a quantisation scale that is not a positive number",
    ),
    "zero_point_out_of_range": (
        fc(lambda m, sg: setattrs(sg.tensors[0], zero_point=[200])),
        "tensor 0 'input' has zero point 200, outside the range of int8",
    ),
    "rescale_too_large": (
        fc(lambda m, sg: setattrs(sg.tensors[3], scale=[1e-38])),
        "op 0 (FULLY_CONNECTED): a rescaling factor of 1e+35 between its tensors is too large",
    ),
    "per_channel_count": (
        fc(lambda m, sg: setattrs(sg.tensors[1], scale=[0.1] * 3, zero_point=[0] * 3)),
        "op 0 (FULLY_CONNECTED): tensor 1 'weights' has 3 scales for 4 channels",
    ),
    "variable_tensor": (
        fc(lambda m, sg: setattrs(sg.tensors[0], is_variable=True)),
        "tensor 0 'input' is a variable and a graph input or output, which is not supported",
    ),
    "conv_dilation": (conv(dilation=0), "op 0 (CONV_2D): dilation 0x0 must be at least 1"),
    "conv_tanh": (
        conv(activation=tb.ACT.TANH),
        "op 0 (CONV_2D), tensor 3 'output': fused activation TANH is not supported",
    ),
    "fully_connected_tanh": (
        fc(lambda m, sg: None, activation=tb.ACT.TANH),
        "op 0 (FULLY_CONNECTED), tensor 3 'output': fused activation TANH is not supported",
    ),
    "fully_connected_float_sign_bit": (
        fc(lambda m, sg: None, activation=tb.ACT.SIGN_BIT, float32=True),
        "op 0 (FULLY_CONNECTED): fused activation SIGN_BIT is not supported",
    ),
    "conv_padding_enum": (
        conv(padding=7),
        "op 0 (CONV_2D): padding type 7 is not supported (SAME or VALID)",
    ),
    "conv_stride_zero": (
        conv_edit(lambda m, sg: sg.operators[0].options.__setitem__("StrideW", 0)),
        "op 0 (CONV_2D): stride (1, 0) must be at least 1",
    ),
    "conv_without_options": (
        conv_edit(no_options),
        "op 0 (CONV_2D): the StrideH option is missing",
    ),
    "conv_with_other_ops_options": (
        conv_edit(lambda m, sg: setattrs(sg.operators[0], options_name="AddOptions", options={})),
        "op 0 (CONV_2D): the StrideH option is missing",
    ),
    "weights_shuffled": (
        fc(lambda m, sg: sg.operators[0].options.__setitem__("WeightsFormat", 1)),
        "op 0 (FULLY_CONNECTED): shuffled weights format is not supported",
    ),
}


def tflite_type(name: str) -> int:
    return int(getattr(tb.tflite.TensorType, name))


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_model_is_one_error_line(case, tmp_path):
    make, expected = HOSTILE[case]
    model = tmp_path / "hostile.tflite"
    model.write_bytes(make())
    out = tmp_path / "out"
    status, stderr = inprocess.compile_model(model, out)
    lines = stderr.splitlines()
    assert status == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert expected in lines[0], lines[0]
    assert "internal compiler error" not in stderr
    assert not out.exists(), "a failed compile left an output directory"


@pytest.mark.parametrize("case", ["cycle", "buffer_offset_past_end", "conv_tanh"])
def test_hostile_model_through_the_real_cli(case, tmp_path):
    """The same, as a build system sees it: a separate process, no traceback."""
    model = tmp_path / "hostile.tflite"
    model.write_bytes(HOSTILE[case][0]())
    out = tmp_path / "out"
    done = tinyaot("compile", str(model), "--name", "m", "--output-dir", str(out))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert HOSTILE[case][1] in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == "" and not out.exists()


def test_sane_int8_model_matches_tflm(tmp_path):
    model = tmp_path / "fc.tflite"
    model.write_bytes(tb.build(tb.fully_connected(units=5, depth=12, activation=tb.ACT.RELU)))
    assert check_against_tflm(model, tmp_path, sets=3).exact


def test_sane_float_model_matches_tflm(tmp_path):
    model = tmp_path / "fc.tflite"
    model.write_bytes(tb.build(tb.fully_connected(float32=True)))
    check_against_tflm(model, tmp_path, sets=2)


def test_open_batch_in_signature_is_accepted(tmp_path):
    """Converters mark "any batch" with -1 in shape_signature; the stored shape is used."""
    m = tb.fully_connected()
    m.subgraphs[0].tensors[0].shape_signature = [-1, 8]
    m.subgraphs[0].tensors[3].shape_signature = [-1, 4]
    model = tmp_path / "fc.tflite"
    model.write_bytes(tb.build(m))
    assert check_against_tflm(model, tmp_path, sets=1).exact


NAME_SETS = {
    "empty_keyword_unicode_digit_long": [
        "",
        "int",
        "ünïcödé 名前",
        "1abc",
        "x" * 1000,
        "x" * 1000,
        "int",
    ],
    "collisions_and_other_languages": ["a-b", "a_b", "A.B", "new", "class", "bool", "true"],
    "undecodable_and_macros": [b"\xff\xfe\x80", "_", "___", "while", "stdin", "errno", "typeof"],
}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


@pytest.mark.parametrize("names", sorted(NAME_SETS))
def test_hostile_names_become_valid_unique_identifiers(names, tmp_path):
    model = tmp_path / "names.tflite"
    model.write_bytes(tb.build(tb.add_chain(NAME_SETS[names])))  # type: ignore[arg-type]
    # Builds with -Wall -Wextra -Werror and runs, bit-exact with TFLM.
    assert check_against_tflm(model, tmp_path, sets=1).exact
    gen = compile_model(model, tmp_path / "again")
    header = (gen / "m.h").read_text(encoding="utf-8")
    for which, count in (("inputs", 4), ("outputs", 3)):
        fields = [f for _, f in runner.struct_fields(header, "m", which)]
        assert len(fields) == count and len(set(fields)) == count, fields
        assert all(IDENT.match(f) for f in fields), fields
    # The header also survives C23 (bool, true, typeof are keywords there), C++, and
    # the lowercase macros of <stdio.h>, <errno.h> and <stdbool.h>.
    pre = ["-include", "stdio.h", "-include", "errno.h", "-include", "stdbool.h"]
    for cmd in (
        ["gcc", "-std=c2x", "-Wall", "-Wextra", "-Werror", *pre, "-x", "c"],
        ["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", *pre, "-x", "c++"],
    ):
        done = subprocess.run(
            [*cmd, "-fsyntax-only", "-I", str(CRT_INCLUDE), str(gen / "m.h")],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
