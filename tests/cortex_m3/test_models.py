"""Every corpus model the compiler takes, on an emulated Cortex-M3, compared with TFLite Micro.

The same generated code as the host tests, but cross-compiled for the real instruction set and
ABI (arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb, soft-float) at -Os and -O2, and run under
qemu: int8 outputs must equal TFLite Micro's byte for byte, float32 outputs must be within
FLOAT_RTOL of them. Each firmware carries all its input sets, so one build and one qemu run
cover them.

The board is chosen from the firmware's measured sizes (runner.build_auto): lm3s6965evb
(256 KB flash, 64 KB RAM) when weights + code + harness fit its flash and arena + harness
variables + runner.STACK_RESERVE fit its RAM, mps2-an385 otherwise. Every model also runs at
-O2 on mps2-an386, a Cortex-M4, where the convolutions use the DSP extension's routine and
float32 runs on the FPU (hard float); a handful of them also on mps2-an505, a Cortex-M33 with
the same DSP kernels and FPv5, and on mps3-an547, a Cortex-M55, where the Helium (MVE) kernels
take over. For the two DSP cores the model is compiled as the Zephyr module compiles it for
them, with --speed-scratch (compiler.SPEED_SCRATCH_DSP), and with --speed-flash SPEED_FLASH, so
that the convolutions run on both the int8 and the int16 weights of the DSP routine.

Everything is built and run once per session by the `runs` fixture, in parallel across
models; the tests then only check the results, so a failure names its model and -O level.
"""

from __future__ import annotations

import os
import re
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import tflite

sys.path.insert(0, str(Path(__file__).resolve().parent))

import runner
from harness import FLOAT_RTOL, c_name, compare, compile_model
from reference import Reference, model_paths
from tinyaot import compiler, frontend, report
from tinyaot.ir import DType
from tinyaot.ops.conv_2d import DSP16_DEPTH

pytestmark = pytest.mark.skipif(
    bool(runner.missing_tools()),
    reason=f"Cortex-M3 tests need {', '.join(runner.missing_tools())} on PATH "
    "(apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)",
)

MODELS = model_paths()
# Every model runs at -Os (the flash figures' level); -O2 and the Cortex-M4 build, which take
# the fast kernels' other routines, run on the MLPerf Tiny and TFLite Micro models, which use
# every one of them, to keep the suite within CI's time.
FAST_MODELS = [m for m in MODELS if m.stem.startswith(("mlperf_tiny_", "tflm_"))]
SETS = 3
# Half the weights again: the layers with the most MACs per byte take the int16 weights of the
# DSP routine, the others keep the int8 ones (over FAST_MODELS, 74 calls in 10 models take the
# first, 22 the second).
SPEED_FLASH = 50
# The profiled build checked by test_profile_covers_every_op: a model with many op kinds.
PROFILED = "mlperf_tiny_kws_dscnn_int8"
# Generous: the slowest firmware (float32 ResNet-8, 3 sets, about 3e9 instructions) takes a
# few seconds.
QEMU_TIMEOUT = 120.0


@dataclass
class Case:
    """One firmware: a model at one -O level, its expected outputs and what qemu returned."""

    model: Path
    opt: str
    profile: bool
    board: str = "auto"
    gen: Path | None = None
    inputs: list[list[np.ndarray]] | None = None
    expected: list[list[np.ndarray]] | None = None
    result: runner.RunResult | None = None
    error: BaseException | None = None

    def get(self) -> runner.RunResult:
        """The run's result; re-raises what went wrong while building or running it."""
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


# The Cortex-M4 board, and the -O level its firmware is built at.
M4_BOARD, M4_OPT = "mps2-an386", "-O2"
# Besides FAST_MODELS there: the int16x8 models, whose convolutions take SMLAD
# (tinyaot/conv_fast_s16.h).
M4_MODELS = FAST_MODELS + [
    m for m in MODELS if m.stem in {"armzoo_kws_ds_cnn_s_int16x8", "ambiq_nnid_int16x8"}
]
# The Cortex-M55 board and its models: the MLPerf Tiny int8 ones (every int8 kernel with an
# MVE routine, convolutions of every shape they have, FULLY_CONNECTED), TFLite Micro's person
# detector (another MobileNet) and micro_speech, the LSTM keyword spotter (the gates' Helium
# dot products), and a float32 model for the FPv5 (hard float).
M55_BOARD, M55_OPT = "mps3-an547", "-O2"
M55_MODELS = [
    m
    for m in FAST_MODELS
    if m.stem
    in {
        "mlperf_tiny_kws_dscnn_int8",
        "mlperf_tiny_vww_mobilenetv1_int8",
        "mlperf_tiny_ic_resnet8_int8",
        "mlperf_tiny_ad_autoencoder_int8",
        "tflm_person_detect_int8",
        "tflm_micro_speech_int8",
        "tflm_micro_speech_lstm_int8",
        "tflm_hello_world_float32",
    }
]
# The Cortex-M33 board (Armv8-M Mainline with the DSP extension and FPv5-SP): the DSP kernels
# and the float32 block loops of the Cortex-M4F on another architecture version and FPU.
M33_BOARD, M33_OPT = "mps2-an505", "-O2"
DSP_BOARDS = (M4_BOARD, M33_BOARD)
M33_MODELS = [
    m
    for m in FAST_MODELS
    if m.stem
    in {
        "mlperf_tiny_kws_dscnn_int8",
        "mlperf_tiny_vww_mobilenetv1_int8",
        "mlperf_tiny_ad_autoencoder_int8",
        "tflm_person_detect_int8",
        "tflm_magic_wand_float32",
    }
]


def _key(model: Path, opt: str, profile: bool = False, board: str = "auto") -> str:
    return f"{model.stem}{opt}{'-profile' if profile else ''}{'' if board == 'auto' else board}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    """Compile, build and run every model at every -O level, in parallel, once."""
    root = tmp_path_factory.mktemp("cortex_m3")
    cases = {_key(m, "-Os"): Case(m, "-Os", False) for m in MODELS}
    cases.update({_key(m, "-O2"): Case(m, "-O2", False) for m in FAST_MODELS})
    profiled = [m for m in MODELS if m.stem == PROFILED]
    cases.update({_key(m, "-O2", True): Case(m, "-O2", True) for m in profiled})
    cases.update(
        {_key(m, M4_OPT, board=M4_BOARD): Case(m, M4_OPT, False, M4_BOARD) for m in M4_MODELS}
    )
    cases.update(
        {_key(m, M55_OPT, board=M55_BOARD): Case(m, M55_OPT, False, M55_BOARD) for m in M55_MODELS}
    )
    cases.update(
        {_key(m, M33_OPT, board=M33_BOARD): Case(m, M33_OPT, False, M33_BOARD) for m in M33_MODELS}
    )

    # The references run here, in this thread: one TFLM interpreter per model, three sets,
    # seeded by the model's name so a failure reproduces.
    inputs: dict[str, list[list[np.ndarray]]] = {}
    expected: dict[str, list[list[np.ndarray]]] = {}
    for model in MODELS:
        ref = Reference(model)
        rng = np.random.default_rng(zlib.crc32(model.stem.encode()))
        inputs[model.stem] = [ref.random_inputs(rng) for _ in range(SETS)]
        # One firmware runs the sets in order: a stateful model carries its state across.
        expected[model.stem] = ref.run_sequence(inputs[model.stem])

    def generate(job: tuple[Path, bool]) -> Path | AssertionError:
        """The generated folder, or the compile failure for the model's tests to report. The
        DSP cores' firmware is compiled as the Zephyr module compiles it for them, the arena
        allowed to grow by SPEED_SCRATCH_DSP percent for the DSP kernels' scratch, and with
        SPEED_FLASH percent more weights."""
        model, dsp = job
        out = root / ("gen_dsp" if dsp else "gen") / model.stem
        speed: tuple[str, ...] = ()
        if dsp:
            speed = ("--speed-scratch", str(compiler.SPEED_SCRATCH_DSP))
            speed += ("--speed-flash", str(SPEED_FLASH))
        try:
            return compile_model(model, out, c_name(model), "--quiet", *speed)
        except AssertionError as exc:
            return exc

    def build_and_run(key: str, case: Case) -> None:
        stem = case.model.stem
        case.inputs = inputs[stem]
        case.expected = expected[stem]
        if case.gen is None:
            return  # case.error holds the compile failure
        try:
            case.result = runner.build_and_run(
                case.gen,
                c_name(case.model),
                [[x.tobytes() for x in input_set] for input_set in inputs[stem]],
                board=case.board,
                opt=case.opt,
                workdir=root / "build" / key,
                timeout=QEMU_TIMEOUT,
                extra_cflags=["-DTINYAOT_PROFILE"] if case.profile else [],
                # The cases already keep every core busy.
                jobs=1,
            )
        except (AssertionError, runner.HarnessError) as exc:
            case.error = exc

    workers = os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        jobs = [(m, False) for m in MODELS] + [(m, True) for m in M4_MODELS + M33_MODELS]
        jobs = list(dict.fromkeys(jobs))
        generated = dict(zip(jobs, pool.map(generate, jobs), strict=True))
        for case in cases.values():
            gen = generated[case.model, case.board in DSP_BOARDS]
            if isinstance(gen, AssertionError):
                case.error = gen
            else:
                case.gen = gen
        list(pool.map(lambda item: build_and_run(*item), cases.items()))
    return cases


def _outputs(raw: list[bytes], like: list[np.ndarray]) -> list[np.ndarray]:
    assert len(raw) == len(like), f"firmware printed {len(raw)} outputs, TFLM has {len(like)}"
    got = []
    for data, want in zip(raw, like, strict=True):
        assert len(data) == want.nbytes, f"output of {len(data)} bytes, expected {want.nbytes}"
        got.append(np.frombuffer(data, dtype=want.dtype).reshape(want.shape))
    return got


def test_corpus_models_present() -> None:
    assert len(MODELS) >= 40, "models/ is missing models"


CASES = [(m, "-Os") for m in MODELS] + [(m, "-O2") for m in FAST_MODELS]
CASE_IDS = [f"{m.stem}{opt}" for m, opt in CASES]


@pytest.mark.parametrize("model,opt", CASES, ids=CASE_IDS)
def test_matches_tflite_micro(runs: dict[str, Case], model: Path, opt: str) -> None:
    _check_outputs(runs[_key(model, opt)])


@pytest.mark.parametrize("model", M4_MODELS, ids=[m.stem for m in M4_MODELS])
def test_cortex_m4_matches_tflite_micro(runs: dict[str, Case], model: Path) -> None:
    case = runs[_key(model, M4_OPT, board=M4_BOARD)]
    assert case.get().board == M4_BOARD
    _check_outputs(case)


@pytest.mark.parametrize("model", M55_MODELS, ids=[m.stem for m in M55_MODELS])
def test_cortex_m55_matches_tflite_micro(runs: dict[str, Case], model: Path) -> None:
    case = runs[_key(model, M55_OPT, board=M55_BOARD)]
    assert case.get().board == M55_BOARD
    _check_outputs(case)


@pytest.mark.parametrize("model", M33_MODELS, ids=[m.stem for m in M33_MODELS])
def test_cortex_m33_matches_tflite_micro(runs: dict[str, Case], model: Path) -> None:
    case = runs[_key(model, M33_OPT, board=M33_BOARD)]
    assert case.get().board == M33_BOARD
    _check_outputs(case)


def _check_outputs(case: Case) -> None:
    result = case.get()
    assert case.expected is not None
    assert result.return_codes == [0] * SETS
    for index, (raw, want) in enumerate(zip(result.outputs, case.expected, strict=True)):
        got = _outputs(raw, want)
        for g, w in zip(got, want, strict=True):
            if w.dtype.kind == "f":
                error = compare([g], [w]).max_rel_error
                assert error <= FLOAT_RTOL, (
                    f"set {index}: float error {error:.3g} on {result.board}"
                )
            else:
                assert g.tobytes() == w.tobytes(), (
                    f"set {index}: {w.dtype} output differs from TFLite Micro on {result.board}: "
                    f"{np.count_nonzero(g != w)} of {w.size} values"
                )


def test_choose_board() -> None:
    lm3s_flash, lm3s_ram = runner.BOARD_MEMORY["lm3s6965evb"]
    assert runner.choose_board(1000, 1000) == "lm3s6965evb"
    assert runner.choose_board(lm3s_flash, lm3s_ram - runner.STACK_RESERVE) == "lm3s6965evb"
    assert runner.choose_board(lm3s_flash + 1, 1000) == "mps2-an385"
    assert runner.choose_board(1000, lm3s_ram - runner.STACK_RESERVE + 1) == "mps2-an385"
    with pytest.raises(runner.HarnessError, match="no board"):
        runner.choose_board(1 << 30, 0)


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_board_fits_the_firmware(runs: dict[str, Case], model: Path) -> None:
    """The board is the first that fits, and the stack really stayed inside the reserve."""
    result = runs[_key(model, "-Os")].get()
    sizes = runner.size(result.elf)
    assert result.board == runner.choose_board(sizes["flash"], sizes["ram"])
    assert max(result.stack) <= runner.STACK_RESERVE


# The stack an invoke may use, as README.md states it; the depthwise kernel's window stage is
# most of it (912 bytes measured on VWW at -O2).
STACK_BUDGET = 1024


@pytest.mark.parametrize("model,opt", CASES, ids=CASE_IDS)
def test_stack_within_budget(runs: dict[str, Case], model: Path, opt: str) -> None:
    stack = max(runs[_key(model, opt)].get().stack)
    assert 0 < stack <= STACK_BUDGET, f"{stack} bytes of stack"


# On cores with the DSP extension the convolution routine for windows of up to
# TINYAOT_CONV_DSP16_DEPTH inputs adds its buffer of a pair's widened inputs, 512 bytes (README.md;
# 1208 bytes measured on KWS at -O2).
STACK_BUDGET_DSP = STACK_BUDGET + 4 * DSP16_DEPTH


@pytest.mark.parametrize("model", M4_MODELS, ids=[m.stem for m in M4_MODELS])
def test_cortex_m4_stack_within_budget(runs: dict[str, Case], model: Path) -> None:
    stack = max(runs[_key(model, M4_OPT, board=M4_BOARD)].get().stack)
    assert 0 < stack <= STACK_BUDGET_DSP, f"{stack} bytes of stack"


def test_known_boards(runs: dict[str, Case]) -> None:
    """Spot checks of the choice: KWS fits the small board; VWW's 64.5 KB arena does not."""
    by_stem = {m.stem: m for m in MODELS}
    expected = {
        "mlperf_tiny_kws_dscnn_int8": "lm3s6965evb",
        "tflm_hello_world_int8": "lm3s6965evb",
        "mlperf_tiny_vww_mobilenetv1_int8": "mps2-an385",
        "mlperf_tiny_ic_resnet8_float32": "mps2-an385",
    }
    for stem, board in expected.items():
        if stem in by_stem:
            assert runs[_key(by_stem[stem], "-Os")].get().board == board, stem


def _generated_weights_size(gen: Path, name: str, dsp: bool = False) -> int:
    """The info's weights_size for a core without the optimised kernels (the last, or only,
    value) or, with dsp, for one with the DSP kernels but not Helium's (#elif ...)."""
    text = (gen / f"{name}.c").read_text()
    sizes = re.findall(r"^(#if .*|#elif .*|#else)?\n?\t\.weights_size = (\d+),", text, re.M)
    assert sizes, "no weights_size in the generated info"
    if dsp:
        sizes = [s for s in sizes if "MVE" not in s[0]]
        return int(sizes[0][1])
    return int(sizes[-1][1])


def _computes_in_float(model: Path) -> bool:
    """Whether an op of the model reads or writes float32 data at run time (float inputs or
    outputs included), which soft-float library routines then compute on a Cortex-M3."""
    graph = frontend.load(model)
    return any(
        graph.tensors[t].dtype == DType.FLOAT32 and not graph.tensors[t].is_const
        for op in graph.ops
        for t in [*op.inputs, *op.outputs]
        if t is not None
    )


def _constant_tensor_bytes(model: Path) -> dict[int, int]:
    """Bytes of each tensor of the .tflite's subgraph that has data, read with the tflite
    package rather than the compiler's frontend."""
    graph = tflite.Model.GetRootAsModel(model.read_bytes(), 0)
    subgraph = graph.Subgraphs(0)
    sizes = {}
    for index in range(subgraph.TensorsLength()):
        length = graph.Buffers(subgraph.Tensors(index).Buffer()).DataLength()
        if length:
            sizes[index] = length
    return sizes


@pytest.mark.parametrize("model", M4_MODELS, ids=[m.stem for m in M4_MODELS])
def test_cortex_m4_weights_size(runs: dict[str, Case], model: Path) -> None:
    """The info's weights_size for a core with the DSP kernels is what the Cortex-M4 firmware
    links (its layouts and the int16 weights of SPEED_FLASH included)."""
    case = runs[_key(model, M4_OPT, board=M4_BOARD)]
    result = case.get()
    assert case.gen is not None
    name = c_name(model)
    weights = runner.flash_split(result.elf, name)["weights"]
    assert weights == _generated_weights_size(case.gen, name, dsp=True)


@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_flash_split(runs: dict[str, Case], model: Path) -> None:
    """The benchmark's flash figures against the ELF's symbol table and the .tflite itself."""
    case = runs[_key(model, "-Os")]
    result = case.get()
    assert case.gen is not None
    name = c_name(model)
    split = runner.flash_split(result.elf, name)
    symbols = runner.symbols(result.elf)
    tensors = _constant_tensor_bytes(model)
    model_weights = {}
    for s in symbols:
        match = re.fullmatch(rf"{name}_w(\d+)", s.name)
        if match:
            model_weights[int(match[1])] = s.size
    # Each weight array the firmware links is a constant tensor of the model, byte for byte.
    assert model_weights.keys() <= tensors.keys()
    assert all(tensors[index] == n for index, n in model_weights.items()), model_weights
    assert split["model_weights"] == sum(model_weights.values())
    tables = [s.size for s in symbols if re.fullmatch(rf"{name}_c\d+", s.name)]
    assert split["generated_tables"] == sum(tables)
    assert split["weights"] == _generated_weights_size(case.gen, name)
    # The model's functions and the runtime's, sized by nm; the map can only add alignment
    # padding: GCC pads a function's section to its literal pool's 4 bytes (2 bytes at most
    # past Thumb code), the runtime's assembly sections pad inside.
    text = {"t", "T"}
    generated = [s.size for s in symbols if s.kind in text and s.name.startswith(f"{name}_")]
    assert 0 <= split["generated_code"] - sum(generated) <= 2 * len(generated)
    runtime = [s.size for s in symbols if s.kind in text and s.name.startswith("tinyaot_")]
    assert 0 <= split["runtime_code"] - sum(runtime) <= 4 * len(runtime)
    assert split["generated_code"] > 0
    assert split["generated_const"] > 0
    if not _computes_in_float(model):
        # The integer kernels call no library code (no soft-float, no 64-bit division) but
        # the C library's block copy and fill, which the data movement kernels use.
        memory = sum(s.size for s in symbols if s.name in ("memcpy", "memmove", "memset"))
        assert split["library_code"] <= memory
    # The harness's inputs are in flash but not the model's.
    assert case.inputs is not None
    assert split["harness"] >= sum(x.nbytes for input_set in case.inputs for x in input_set)


@pytest.mark.skipif(PROFILED not in [m.stem for m in MODELS], reason=f"{PROFILED} is missing")
def test_profile_covers_every_op(runs: dict[str, Case]) -> None:
    """A TINYAOT_PROFILE build gives the same outputs and a tick count for each op."""
    model = next(m for m in MODELS if m.stem == PROFILED)
    plain = runs[_key(model, "-O2")].get()
    profiled = runs[_key(model, "-O2", True)].get()
    assert profiled.outputs == plain.outputs
    assert plain.profile == [] and plain.profile_overhead is None
    assert profiled.profile_overhead is not None and 0 < profiled.profile_overhead < 500
    for ops, total in zip(profiled.profile, plain.ticks, strict=True):
        indices = [op.index for op in ops]
        assert indices == sorted(set(indices)) and len(ops) >= 10
        assert all(op.ticks > profiled.profile_overhead for op in ops)
        # Both builds run the same kernels: the ops add up to the plain invoke's ticks, less
        # the invoke's own few instructions and plus the hook's per op.
        measured = sum(op.ticks - profiled.profile_overhead for op in ops)
        assert measured == pytest.approx(total, rel=1e-3)


@pytest.mark.parametrize("stem", ["mlperf_tiny_kws_dscnn_int8", "tflm_hello_world_float32"])
def test_report_code_estimate(runs: dict[str, Case], stem: str) -> None:
    """`tinyaot report`'s code estimate (no image given) counts exactly the runtime code the
    firmware's link keeps, Thumb-2 assembly included, and the model's functions at least
    as the firmware keeps them (the estimate keeps its whole API)."""
    model = next((m for m in MODELS if m.stem == stem), None)
    if model is None:
        pytest.skip(f"{stem} is missing")
    case = runs[_key(model, "-Os")]
    elf = case.get().elf
    assert runner.BOARD_CPU[case.get().board] == "cortex-m3"
    name = c_name(model)
    estimate = report.code_size(compiler.compile_model(model, compiler.Options(name=name)))
    assert estimate is not None and estimate.source == "estimate"
    symbols = runner.symbols(elf)
    text = {"t", "T"}
    runtime = sum(s.size for s in symbols if s.kind in text and s.name.startswith("tinyaot_"))
    model_code = sum(s.size for s in symbols if s.kind in text and s.name.startswith(f"{name}_"))
    assert estimate.runtime == runtime > 0
    assert estimate.model >= model_code > 0
