#!/usr/bin/env python3
"""Regenerate the reference data that the twister suites and the samples compare with.

Every expected output comes from the TFLite Micro interpreter on the host (tests/reference.py).
Written, relative to the repository (or to --root):

- tests/zephyr/models/expected/<model>.c: for each model of ZEPHYR_MODELS, the outputs for
  input sets drawn from a seeded xorshift32 stream, which the target regenerates, so that no
  inputs are stored;
- tests/zephyr/models/testcase.yaml: one scenario per model, on qemu_cortex_m3 when the model
  fits it and on mps2/an385 otherwise, and for the few of EXTRA_MODELS one more, for every other
  board whose RAM and flash they fit;
- tests/zephyr/threads/src/expected.h: the input sets of the two models of the threads suite
  and their expected outputs;
- samples/*/src/expected.h: the fixed inputs of the samples and their expected outputs.

tests/test_zephyr.py regenerates into a temporary folder and fails when a committed file
differs. Run after changing a model, the sets or this script:

    python3 tests/zephyr/gen_expected.py
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(REPO / "scripts"), str(REPO / "tests")]

from reference import MODELS, Reference  # noqa: E402
from tinyaot.compiler import Options, compile_model  # noqa: E402

SUITE = Path("tests/zephyr/models")
GENERATOR = "tests/zephyr/gen_expected.py"
# The corpus models twister runs: a Zephyr build a model takes most of a minute, so a sample
# of the kinds the host and Cortex-M tests cover in full: the MLPerf Tiny and TFLite Micro
# models, uint8 inputs and outputs, a vision model and a float32 one of other sources.
ZEPHYR_MODELS = (
    "mlperf_tiny_ad_autoencoder_int8",
    "mlperf_tiny_aww_dscnn_uint8",
    "mlperf_tiny_ic_resnet8_float32",
    "mlperf_tiny_ic_resnet8_int8",
    "mlperf_tiny_kws_dscnn_int8",
    "mlperf_tiny_vww_mobilenetv1_int8",
    "sscma_micro_mnist_int8",
    "tflm_hello_world_float32",
    "tflm_hello_world_int8",
    "tflm_magic_wand_float32",
    "tflm_micro_speech_int8",
    "tflm_person_detect_int8",
    "tflm_simple_add",
)

# Small outputs get several input sets; a large one (simple_add: 16 KB) one, to keep the
# committed data and the flash image small.
SETS = 3
LARGE_OUTPUT = 1024

# Every other architecture runs only these, to keep CI within its time: the DS-CNN and
# micro_speech int8 (convolutions, depthwise, fully connected, softmax; the DSP kernels where
# the core has them) and a float32 model.
EXTRA_MODELS = ("mlperf_tiny_kws_dscnn_int8", "tflm_micro_speech_int8", "tflm_hello_world_float32")

# Models also run as tinyaot.patch.*, on their Cortex-M3 board, with the Kconfig lines that give
# them a patch plan: person detection under the 12 KB budget (its first layers in
# stripes, its image read in place by _run()), ResNet-8 with its smallest arena (residual
# blocks in stripes that keep their shared rows).
PATCH_MODELS = {
    "tflm_person_detect_int8": "CONFIG_TINYAOT_ARENA_BUDGET=12288",
    "mlperf_tiny_ic_resnet8_int8": "CONFIG_TINYAOT_SMALLEST_ARENA=y",
}

# What Zephyr and ztest take besides the model in this suite, for twister's min_ram and
# min_flash (KB) of the other boards: measured on qemu_cortex_m0 (RAM 8.4 KB with micro_speech's
# 4 KB arena; flash 36 KB besides its 17 KB of weights), with margin.
ZEPHYR_RAM = 10 * 1024
ZEPHYR_FLASH = 48 * 1024
CORTEX_M3_BOARDS = ("qemu_cortex_m3", "mps2/an385")

# What qemu_cortex_m3 (64 KB RAM, 256 KB flash) has left for a model once Zephyr, ztest and
# the test itself are in: measured on this suite's hello_world build (RAM 13 KB with the
# 4 KB ztest stack, flash 23 KB), with margin.
M3_RAM = 64 * 1024 - 16 * 1024
M3_FLASH = 256 * 1024 - 48 * 1024


def xorshift32(state: int, count: int) -> tuple[np.ndarray, int]:
    """The target's generator (tests/zephyr/models/src/main.c): `count` words, the new state."""
    out = np.empty(count, dtype=np.uint32)
    for i in range(count):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        out[i] = state
    return out, state


def seeded_inputs(ref: Reference, seed: int) -> list[np.ndarray]:
    """Inputs filled one after the other from one stream, as the target fills them."""
    state = seed
    inputs = []
    for d in ref.inputs:
        shape, dtype = tuple(int(n) for n in d["shape"]), np.dtype(d["dtype"])
        count = int(np.prod(shape))
        if dtype == np.float32:
            words, state = xorshift32(state, count)
            # 24 bits scaled to [-1, 1): exact in float32, as on the target.
            values = (words >> 8).astype(np.float32) * np.float32(2.0**-23) - np.float32(1.0)
        elif dtype in (np.int8, np.uint8):
            words, state = xorshift32(state, count)
            values = (words >> 24).astype(np.uint8).view(dtype)
        else:
            raise SystemExit(f"{GENERATOR}: no input generator for dtype {dtype}")
        inputs.append(values.reshape(shape))
    return inputs


def seed_of(index: int) -> int:
    return (0x9E3779B9 * (index + 1)) & 0xFFFFFFFF or 1


CTYPES = {
    np.dtype(np.int8): "int8_t",
    np.dtype(np.uint8): "uint8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.float32): "float",
}


def c_values(values: np.ndarray) -> list[str]:
    if values.dtype == np.float32:
        # 9 significant digits name a float32 exactly.
        return [f"{float(v):.9g}f" for v in values.ravel()]
    return [str(int(v)) for v in values.ravel()]


def c_array(name: str, values: np.ndarray, storage: str = "static const") -> str:
    items = c_values(values)
    per_line = 8 if values.dtype == np.float32 else 16
    lines = [", ".join(items[i : i + per_line]) + "," for i in range(0, len(items), per_line)]
    body = "\n".join("\t" + line for line in lines)
    return f"{storage} {CTYPES[values.dtype]} {name}[{len(items)}] = {{\n{body}\n}};\n"


def header_comment(lines: Iterable[str]) -> str:
    text = "\n".join(f" * {line}".rstrip() for line in lines)
    return f"/*\n{text}\n */\n"


@dataclass
class Fit:
    arena: int
    weights: int

    def fits(self, ram: int, flash: int, expected_bytes: int) -> bool:
        return self.arena <= ram and self.weights + expected_bytes <= flash


def model_fit(model: Path) -> Fit:
    compiled = compile_model(model, Options(name="model"))
    return Fit(compiled.plan.size, compiled.weights_size)


def out_sizes(ref: Reference) -> list[int]:
    return [int(np.prod(d["shape"])) * np.dtype(d["dtype"]).itemsize for d in ref.outputs]


def expected_source(model: Path, ref: Reference) -> tuple[str, int]:
    """The expected/<model>.c text and the bytes of expected data it holds."""
    sets = 1 if sum(out_sizes(ref)) > LARGE_OUTPUT else SETS
    parts = [
        header_comment(
            [
                f"Generated by {GENERATOR} from {model.name}:",
                "the outputs of the TFLite Micro interpreter for the inputs the suite draws",
                "from each seed. Do not edit.",
            ]
        ),
        "/* clang-format off */",
        '#include "expected.h"\n',
    ]
    held = 0
    for s in range(sets):
        outputs = ref.run(seeded_inputs(ref, seed_of(s)))
        names = []
        for o, y in enumerate(outputs):
            names.append(f"set{s}_output{o}")
            parts.append(c_array(names[-1], np.ascontiguousarray(y)))
            held += y.nbytes
        parts.append(f"static const void *const set{s}_outputs[] = {{{', '.join(names)}}};\n")
    in_sizes = [int(np.prod(d["shape"])) * np.dtype(d["dtype"]).itemsize for d in ref.inputs]
    sets_init = "\n".join(f"\t{{{seed_of(s):#010x}u, set{s}_outputs}}," for s in range(sets))
    parts += [
        f"static const size_t input_sizes[] = {{{', '.join(map(str, in_sizes))}}};",
        f"static const size_t output_sizes[] = {{{', '.join(str(n) for n in out_sizes(ref))}}};\n",
        f"static const struct expected_set sets[] = {{\n{sets_init}\n}};\n",
        "const struct expected_model expected = {",
        f'\t"{model.stem}", {len(ref.inputs)}, {len(ref.outputs)}, input_sizes, output_sizes,',
        f"\t{sets}, sets,",
        "};",
        "/* clang-format on */",
    ]
    return "\n".join(parts) + "\n", held


def testcase_yaml(boards: dict[str, list[str]], minimum: dict[str, tuple[int, int]]) -> str:
    """The scenarios: tinyaot.models.* on the boards given, tinyaot.arch.* on every board
    with the minimum RAM and flash given, tinyaot.patch.* (PATCH_MODELS)."""
    suite_dir = REPO / SUITE
    lines = [
        f"# Generated by {GENERATOR}: one scenario per model of its ZEPHYR_MODELS, compiled",
        "# through CONFIG_TINYAOT_MODEL_PATH and compared with TFLite Micro on the target;",
        "# on qemu_cortex_m3 when the model fits its 64 KB RAM and 256 KB flash, else on",
        "# mps2/an385 (also a Cortex-M3, with 4 MB of each). A few models also as tinyaot.arch.*,",
        "# on every other board with the RAM and flash (KB) they need; no list of those boards,",
        "# as twister rejects a board name its Zephyr version does not know. tinyaot.patch.*:",
        "# models of PATCH_MODELS with a patch plan, on their Cortex-M3 board. Do not edit.",
        "common:",
        "  tags: tinyaot",
        "  harness: ztest",
        "  timeout: 600",
        "tests:",
    ]
    for stem, platforms in boards.items():
        path = os.path.relpath(MODELS / f"{stem}.tflite", suite_dir)
        lines += [
            f"  tinyaot.models.{stem}:",
            "    platform_allow:",
            *(f"      - {p}" for p in platforms),
            "    integration_platforms:",
            f"      - {platforms[0]}",
            "    extra_configs:",
            f'      - CONFIG_TINYAOT_MODEL_PATH="{path}"',
        ]
    for stem, (ram, flash) in minimum.items():
        path = os.path.relpath(MODELS / f"{stem}.tflite", suite_dir)
        lines += [
            f"  tinyaot.arch.{stem}:",
            "    platform_exclude:",
            *(f"      - {p}" for p in CORTEX_M3_BOARDS),
            f"    min_ram: {ram}",
            f"    min_flash: {flash}",
            "    extra_configs:",
            f'      - CONFIG_TINYAOT_MODEL_PATH="{path}"',
        ]
    for stem, config in PATCH_MODELS.items():
        path = os.path.relpath(MODELS / f"{stem}.tflite", suite_dir)
        lines += [
            f"  tinyaot.patch.{stem}:",
            "    platform_allow:",
            f"      - {boards[stem][0]}",
            "    integration_platforms:",
            f"      - {boards[stem][0]}",
            "    extra_configs:",
            f'      - CONFIG_TINYAOT_MODEL_PATH="{path}"',
            f"      - {config}",
        ]
    return "\n".join(lines) + "\n"


# The samples: fixed inputs (no sensor or audio front end here) and the reference outputs.

HELLO_XS = [0.0, 0.75, 1.5, 2.25, 3.0, 3.75, 4.5, 5.25, 6.0]


def quantize(x: float, detail: dict) -> int:
    q = detail["quantization_parameters"]
    scale, zero = float(q["scales"][0]), int(q["zero_points"][0])
    return int(np.clip(round(x / scale) + zero, -128, 127))


def hello_header(model: Path) -> str:
    ref = Reference(model)
    rows = []
    for x in HELLO_XS:
        qx = quantize(x, ref.inputs[0])
        qy = int(ref.run([np.array([[qx]], dtype=np.int8)])[0].ravel()[0])
        q = ref.inputs[0]["quantization_parameters"]
        real_x = (qx - int(q["zero_points"][0])) * float(q["scales"][0])
        rows.append(f"\t{{{qx}, {qy}, {round(math.sin(real_x) * 1000)}}},")
    return "\n".join(
        [
            header_comment(
                [
                    f"Generated by {GENERATOR} from model/{model.name}:",
                    "quantised inputs and the outputs of the TFLite Micro interpreter for them.",
                    "Do not edit.",
                ]
            ),
            "/* clang-format off */",
            "#ifndef EXPECTED_H_",
            "#define EXPECTED_H_\n",
            "#include <stdint.h>\n",
            "struct sine_point {",
            "\tint8_t x;          /* quantised input */",
            "\tint8_t y;          /* quantised output of the reference interpreter */",
            "\tint16_t sin_milli; /* sin(x) * 1000, to show how close the model gets */",
            "};\n",
            "static const struct sine_point expected_points[] = {",
            *rows,
            "};\n",
            "#endif /* EXPECTED_H_ */",
            "/* clang-format on */",
        ]
    )


def features(frames: int, coefficients: int, phase: float) -> np.ndarray:
    """A smooth synthetic feature map (frames x coefficients) in the int8 range."""
    t = np.arange(frames)[:, None]
    c = np.arange(coefficients)[None, :]
    v = 60.0 * np.sin(0.21 * t + 0.37 * c + phase) - 20.0 * np.cos(0.05 * t * c)
    return np.clip(np.round(v), -128, 127).astype(np.int8)


def sample_model_arrays(model: Path, prefix: str, phase: float) -> list[str]:
    """Both speech models take 49 frames of features (1 s of audio)."""
    ref = Reference(model)
    shape = [int(n) for n in ref.inputs[0]["shape"]]
    size = int(np.prod(shape))
    x = features(49, size // 49, phase).reshape(shape)
    y = ref.run([x])[0]
    return [c_array(f"{prefix}_input", x), c_array(f"{prefix}_expected", np.ascontiguousarray(y))]


def features_header(models: list[tuple[Path, str, float]]) -> str:
    parts = [
        header_comment(
            [
                f"Generated by {GENERATOR}: a fixed synthetic input per model",
                "(there is no audio front end in the sample) and the output of the TFLite",
                "Micro interpreter for it. Do not edit.",
            ]
        ),
        "/* clang-format off */",
        "#ifndef EXPECTED_H_",
        "#define EXPECTED_H_\n",
        "#include <stdint.h>\n",
    ]
    for model, prefix, phase in models:
        parts += sample_model_arrays(model, prefix, phase)
    parts += ["#endif /* EXPECTED_H_ */", "/* clang-format on */"]
    return "\n".join(parts) + "\n"


def custom_op_header(model: Path) -> str:
    """Fixed inputs of the custom_op sample and what TFLite Micro gives for them on the model
    its custom op came from (the builtin LEAKY_RELU: gen_model.original)."""
    sys.path.insert(0, str(model.parents[1]))
    import gen_model

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "original.tflite"
        path.write_bytes(gen_model.original(model.read_bytes()))
        ref = Reference(path)
        shape = tuple(int(n) for n in ref.inputs[0]["shape"])
        rng = np.random.default_rng(2024)
        xs = [rng.uniform(-2.0, 2.0, size=shape).astype(np.float32) for _ in range(3)]
        ys = [ref.run([x])[0] for x in xs]
    return "\n".join(
        [
            header_comment(
                [
                    f"Generated by {GENERATOR} from model/{model.name}: fixed inputs and the",
                    "outputs of the TFLite Micro interpreter for them, on the model with the",
                    "builtin LEAKY_RELU that the custom op replaces. Do not edit.",
                ]
            ),
            "/* clang-format off */",
            "#ifndef EXPECTED_H_",
            "#define EXPECTED_H_\n",
            f"#define SAMPLE_SETS {len(xs)}",
            f"#define SAMPLE_INPUTS {xs[0].size}",
            f"#define SAMPLE_OUTPUTS {ys[0].size}\n",
            c_array("sample_inputs", np.concatenate([x.ravel() for x in xs])),
            c_array("sample_expected", np.concatenate([y.ravel() for y in ys])),
            "#endif /* EXPECTED_H_ */",
            "/* clang-format on */",
        ]
    )


# The streaming sample: microWakeWord's voice-activity detector reads 3 feature frames (30 ms of
# audio) per invocation and keeps what its streaming convolutions need of the earlier ones in
# resource variables, so each output depends on every chunk fed since the last reset. Two quiet
# chunks, then voiced ones: a log-mel floor with a slowly modulated band of energy around channel
# 10, where a random search over such bands found the detector's output rising furthest.
STREAM_VOICED = (False, False, True, True, True, True, True, True, True, True)


def stream_chunk(index: int, voiced: bool, frames: int, channels: int) -> np.ndarray:
    t = np.arange(frames * index, frames * (index + 1))[:, None]
    c = np.arange(channels)[None, :]
    v = -110.0 + 3.0 * np.sin(0.9 * t + 0.7 * c)
    if voiced:
        v = v + 140.0 * np.exp(-((c - 10) ** 2) / 30.0) * (0.95 - 0.05 * np.sin(0.35 * t))
    return np.clip(np.round(v), -128, 127).astype(np.int8)


def streaming_header(model: Path) -> str:
    """The chunks the streaming sample feeds and TFLite Micro's output after each, its state
    carried from one invocation to the next from the initial state."""
    ref = Reference(model)
    shape = tuple(int(n) for n in ref.inputs[0]["shape"])
    chunks = [
        [stream_chunk(i, voiced, shape[1], shape[2]).reshape(shape)]
        for i, voiced in enumerate(STREAM_VOICED)
    ]
    outputs = [y[0] for y in ref.run_sequence(chunks)]
    # The sample must fail when the state is dropped between invocations or not reset.
    fresh = [ref.run(chunk)[0] for chunk in chunks]
    assert any(not np.array_equal(y, f) for y, f in zip(outputs, fresh, strict=True))
    unreset = int(ref.run_sequence([*chunks, chunks[0]])[-1][0].ravel()[0])
    assert unreset != int(outputs[0].ravel()[0])
    comment = [
        f"Generated by {GENERATOR} from model/{model.name}: the feature chunks",
        "the sample feeds, one per invocation, and the output of the TFLite Micro",
        "interpreter after each, its state carried from one invocation to the next.",
        f"Chunk 0 fed again after them without a reset gives {unreset}. Do not edit.",
    ]
    lines = [
        header_comment(comment),
        "/* clang-format off */",
        "#ifndef EXPECTED_H_",
        "#define EXPECTED_H_\n",
        "#include <stdint.h>\n",
        f"#define STREAM_CHUNKS {len(chunks)}",
        f"#define STREAM_CHUNK_SIZE {chunks[0][0].size}\n",
        c_array("stream_features", np.concatenate([c[0].ravel() for c in chunks])),
        c_array("stream_voiced", np.array(STREAM_VOICED, dtype=np.uint8)),
        c_array("stream_expected", np.concatenate([y.ravel() for y in outputs])),
        "#endif /* EXPECTED_H_ */",
        "/* clang-format on */",
    ]
    return "\n".join(lines) + "\n"


# The threads suite (tests/zephyr/threads): two corpus models that run in two threads at once,
# each in an arena of its own, and one after the other out of one shared pool. Their C names,
# as its CMakeLists.txt compiles them, and the input sets each thread cycles through.
THREADS_SUITE = Path("tests/zephyr/threads")
THREADS_MODELS = {"kws": "mlperf_tiny_kws_dscnn_int8", "micro_speech": "tflm_micro_speech_int8"}
THREADS_SETS = 4


def threads_header() -> str:
    """Each model's input sets (seeded, as the models suite draws them) and TFLite Micro's
    outputs for them. The outputs of a model's sets differ from one another, so that a thread
    that got another set's result, or the other instance's, fails."""
    parts = [
        header_comment(
            [
                f"Generated by {GENERATOR}: for each model of the threads suite,",
                f"{THREADS_SETS} input sets and the outputs of the TFLite Micro interpreter",
                "for them, set after set. Do not edit.",
            ]
        ),
        "/* clang-format off */",
        "#ifndef EXPECTED_H_",
        "#define EXPECTED_H_\n",
        "#include <stdint.h>\n",
        f"#define EXPECTED_SETS {THREADS_SETS}\n",
    ]
    for name, stem in THREADS_MODELS.items():
        ref = Reference(MODELS / f"{stem}.tflite")
        xs = [seeded_inputs(ref, seed_of(s)) for s in range(THREADS_SETS)]
        assert all(len(x) == 1 for x in xs) and len(ref.outputs) == 1, stem
        ys = [ref.run(x)[0] for x in xs]
        distinct = {y.tobytes() for y in ys}
        assert len(distinct) == THREADS_SETS, f"{stem}: two sets give the same output"
        parts.append(f"/* {stem}.tflite */")
        parts.append(c_array(f"{name}_inputs", np.concatenate([x[0].ravel() for x in xs])))
        parts.append(c_array(f"{name}_expected", np.concatenate([y.ravel() for y in ys])))
    parts += ["#endif /* EXPECTED_H_ */", "/* clang-format on */"]
    return "\n".join(parts) + "\n"


def generate() -> dict[Path, str]:
    files: dict[Path, str] = {}
    boards: dict[str, list[str]] = {}
    minimum: dict[str, tuple[int, int]] = {}
    for model in (MODELS / f"{stem}.tflite" for stem in ZEPHYR_MODELS):
        ref = Reference(model)
        text, held = expected_source(model, ref)
        files[SUITE / "expected" / f"{model.stem}.c"] = text
        fit = model_fit(model)
        # One Cortex-M3 board per model: the full set on both would double the builds.
        m3 = "qemu_cortex_m3" if fit.fits(M3_RAM, M3_FLASH, held) else "mps2/an385"
        boards[model.stem] = [m3]
        if model.stem in EXTRA_MODELS:
            minimum[model.stem] = (
                math.ceil((fit.arena + ZEPHYR_RAM) / 1024),
                math.ceil((fit.weights + held + ZEPHYR_FLASH) / 1024),
            )
    files[SUITE / "testcase.yaml"] = testcase_yaml(boards, minimum)

    samples = Path("samples")
    files[samples / "hello_model/src/expected.h"] = hello_header(
        REPO / samples / "hello_model/model/hello_world_int8.tflite"
    )
    files[samples / "kws/src/expected.h"] = features_header(
        [(REPO / samples / "kws/model/kws.tflite", "kws", 0.0)]
    )
    files[samples / "shared_arena/src/expected.h"] = features_header(
        [
            (REPO / samples / "shared_arena/model/kws.tflite", "kws", 0.0),
            (REPO / samples / "shared_arena/model/micro_speech.tflite", "micro_speech", 1.0),
        ]
    )
    files[samples / "custom_op/src/expected.h"] = custom_op_header(
        REPO / samples / "custom_op/model/leaky_mlp.tflite"
    )
    files[samples / "streaming/src/expected.h"] = streaming_header(
        REPO / samples / "streaming/model/vad.tflite"
    )
    files[THREADS_SUITE / "src/expected.h"] = threads_header()
    return files


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", type=Path, default=REPO, help="write under this folder instead")
    args = p.parse_args(argv)
    for rel, text in generate().items():
        path = args.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
