"""Build TFLite Micro with the CMSIS-NN kernels into the Cortex-M harness of tests/cortex_m3.

TFLM's own makefile downloads its dependencies, which the benchmark cannot rely on, so this
module compiles the sources itself from checkouts given by path (see bench/README.md for the
repositories and commits):

  TFLM_PATH        tflite-micro
  CMSIS_NN_PATH    CMSIS-NN
  FLATBUFFERS_PATH flatbuffers, at the tag TFLM pins (its flatbuffers_download.sh)
  GEMMLOWP_PATH    gemmlowp, at the commit TFLM pins (third_party_downloads.inc)
  RUY_PATH         ruy, at the commit TFLM pins (its profiler header only)

The library is what TFLM's makefile builds for TARGET=cortex_m_generic
OPTIMIZED_KERNEL_DIR=cmsis_nn BUILD_TYPE=release: every kernel, with the files of
kernels/cmsis_nn/ in place of the reference ones of the same name, and CMSIS-NN's int8/int16
sources. It is compiled once per core and optimisation level into a static archive under a
cache directory, so each model links only what its ops reach.

A model becomes a "generated model" of the harness: tflm.h (the tinyaot model API, as
main.c calls it), tflm_data.c (the flatbuffer as a const array, the arena and the model info)
and tflm_ops.h (the op resolver's Add calls), plus bench/tflm_adapter.cc, which runs the
interpreter behind that API. main.c then measures invoke() exactly as it does tinyaot's.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import runner

BENCH = Path(__file__).resolve().parent
ADAPTER = BENCH / "tflm_adapter.cc"
CXX = "arm-none-eabi-g++"
AR = "arm-none-eabi-ar"
NAME = "tflm"

ENV = {
    "tflm": "TFLM_PATH",
    "cmsis_nn": "CMSIS_NN_PATH",
    "flatbuffers": "FLATBUFFERS_PATH",
    "gemmlowp": "GEMMLOWP_PATH",
    "ruy": "RUY_PATH",
}

# Release build as TFLM's makefile makes it for cortex_m_generic with CMSIS-NN (Makefile,
# targets/cortex_m_generic_makefile.inc, ext_libs/cmsis_nn.inc). FLATBUFFERS_LOCALE_INDEPENDENT
# is what TFLM's flatbuffers.patch makes the default.
DEFINES = [
    "-DTF_LITE_STATIC_MEMORY",
    "-DTF_LITE_DISABLE_X86_NEON",
    "-DTF_LITE_MCU_DEBUG_LOG",
    "-DTF_LITE_STRIP_ERROR_STRINGS",
    "-DNDEBUG",
    "-DCMSIS_NN",
    "-DARM_NN_ENABLE_F16=0",
    "-DARM_NN_ENABLE_F32=0",
    "-DFLATBUFFERS_LOCALE_INDEPENDENT=0",
]
CXX_ONLY = ["-std=c++17", "-fno-rtti", "-fno-exceptions", "-fno-threadsafe-statics"]
C_ONLY = ["-std=c17"]


@dataclass(frozen=True)
class Sources:
    """The checkouts TFLM + CMSIS-NN is built from."""

    tflm: Path
    cmsis_nn: Path
    flatbuffers: Path
    gemmlowp: Path
    ruy: Path

    def includes(self) -> list[str]:
        """The include paths TFLM's makefile gives (downloads/ replaced by the checkouts)."""
        dirs = [
            self.tflm,
            self.flatbuffers / "include",
            self.gemmlowp,
            self.ruy,
            self.cmsis_nn,
            self.cmsis_nn / "Include",
        ]
        return [f"-I{d}" for d in dirs]

    def library_sources(self, registrations: set[str]) -> list[Path]:
        """TFLM's library sources for cortex_m_generic + cmsis_nn, as its makefile lists them,
        less the kernel files that define none of `registrations` (Register_CONV_2D, ...):
        the whole library is some 270 files of C++, too many to compile on a shared machine
        for one model's ops. Kernel files that register nothing are helpers, always kept."""
        root = self.tflm / "tensorflow"
        micro = root / "lite" / "micro"

        def cc(folder: Path) -> list[Path]:
            return sorted(p for p in folder.glob("*.cc") if not p.name.endswith("_test.cc"))

        tfl = [
            p
            for p in sorted(root.rglob("*.c*"))
            if p.suffix in (".c", ".cc")
            and not p.name.endswith("_test.cc")
            and micro not in p.parents
            and root / "lite" / "experimental" not in p.parents
            and p.name != "array.cc"  # excluded under TF_LITE_STATIC_MEMORY
        ]
        # The cortex_m_generic target's debug log (a callback, no stdio stream); test
        # helpers are left out as the makefile's MICROLITE_TEST_SRCS are.
        target = micro / "cortex_m_generic"
        base = [
            target / p.name if p.name == "debug_log.cc" else p
            for p in cc(micro)
            if not p.name.startswith(("test_helper", "fake_", "mock_"))
        ]
        optimized = micro / "kernels" / "cmsis_nn"
        kernels = [
            optimized / p.name if (optimized / p.name).is_file() else p
            for p in cc(micro / "kernels")
        ]
        kernels = [p for p in kernels if _needed(p, registrations)]
        cmsis = [
            p
            for p in sorted((self.cmsis_nn / "Source").rglob("*.c"))
            if not p.name.endswith(("_f16.c", "_f32.c")) and p.name != "arm_nntables_flt.c"
        ]
        subdirs = [micro / d for d in ("arena_allocator", "memory_planner", "tflite_bridge")]
        return [*base, *(p for d in subdirs for p in cc(d)), *tfl, *kernels, *cmsis]


_REGISTRATION = re.compile(r"TFLMRegistration\s+(Register_\w+)\s*\(")


def _needed(kernel: Path, registrations: set[str]) -> bool:
    defined = set(_REGISTRATION.findall(kernel.read_text(errors="replace")))
    return not defined or bool(defined & registrations)


def find_sources(paths: dict[str, str | None] | None = None) -> Sources | None:
    """The checkouts from `paths` (by key of ENV) or the environment; None when any is unset.

    A path that is set but wrong is an error, not a silent fallback to tinyaot alone.
    """
    given = {key: (paths or {}).get(key) or os.environ.get(var) for key, var in ENV.items()}
    if not all(given.values()):
        return None
    resolved = {key: Path(str(value)).expanduser().resolve() for key, value in given.items()}
    checks = {
        "tflm": "tensorflow/lite/micro/micro_interpreter.h",
        "cmsis_nn": "Include/arm_nnfunctions.h",
        "flatbuffers": "include/flatbuffers/flatbuffers.h",
        "gemmlowp": "fixedpoint/fixedpoint.h",
        "ruy": "ruy/profiler/instrumentation.h",
    }
    for key, rel in checks.items():
        if not (resolved[key] / rel).is_file():
            raise SystemExit(f"bench: {ENV[key]}={resolved[key]} has no {rel}")
    return Sources(**resolved)


def _commit(path: Path) -> str:
    proc = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


def describe(sources: Sources) -> dict[str, str]:
    """The commit of each checkout, for the report and the JSON."""
    return {key: _commit(getattr(sources, key)) for key in ENV}


def _flags(sources: Sources, cpu: str, opt: str) -> list[str]:
    return [
        f"-mcpu={cpu}",
        "-mthumb",
        *runner.CPU_FLOAT_FLAGS[cpu],
        opt,
        "-ffunction-sections",
        "-fdata-sections",
        "-fno-unwind-tables",
        "-fno-asynchronous-unwind-tables",
        "-fomit-frame-pointer",
        *DEFINES,
        *sources.includes(),
    ]


def _compile(src: Path, obj: Path, flags: Sequence[str]) -> None:
    lang = CXX_ONLY if src.suffix == ".cc" else C_ONLY
    tool = CXX if src.suffix == ".cc" else runner.GCC
    # Written under another name and renamed: an interrupted build leaves no partial object.
    partial = obj.with_suffix(".part")
    command = [tool, *flags, *lang, "-c", str(src), "-o", str(partial)]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise runner.BuildError(f"compiling {src.name} failed", command, proc.stderr)
    partial.rename(obj)


# The benchmark measures models in threads; two would otherwise compile the same objects.
_LIBRARY_LOCK = threading.Lock()


def cache_dir() -> Path:
    """Where the compiled libraries are kept between runs."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tinyaot-bench"


def library(sources: Sources, cpu: str, opt: str, jobs: int, op_names: Sequence[str]) -> Path:
    """The static TFLM + CMSIS-NN library for this core and level with the kernels of these
    ops; objects are compiled on first use and kept for every later op set."""
    with _LIBRARY_LOCK:
        return _library(sources, cpu, opt, jobs, op_names)


def _library(sources: Sources, cpu: str, opt: str, jobs: int, op_names: Sequence[str]) -> Path:
    flags = _flags(sources, cpu, opt)
    key = hashlib.sha256(
        "\n".join([*flags, *describe(sources).values(), _tool_version()]).encode()
    ).hexdigest()[:16]
    out = cache_dir() / f"tflm-{cpu}{opt}-{key}"
    registrations = set().union(*resolver(sources, op_names).values())
    ops_key = hashlib.sha256(" ".join(sorted(registrations)).encode()).hexdigest()[:12]
    lib = out / f"libtflm-{ops_key}.a"
    if lib.is_file():
        return lib
    objdir = out / "obj"
    objdir.mkdir(parents=True, exist_ok=True)
    srcs = sources.library_sources(registrations)
    # Sources share names (kernels/conv.cc, kernels/cmsis_nn/conv.cc): objects are named
    # by their source's path too.
    objs = [
        objdir / f"{src.stem}-{hashlib.sha256(str(src).encode()).hexdigest()[:8]}.o" for src in srcs
    ]
    # Objects of an interrupted first build are kept: the directory is keyed by the flags.
    todo = [(src, obj) for src, obj in zip(srcs, objs, strict=True) if not obj.is_file()]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(lambda pair: _compile(pair[0], pair[1], flags), todo))
    partial = lib.with_suffix(".part")
    partial.unlink(missing_ok=True)
    subprocess.run([AR, "rcs", str(partial), *map(str, objs)], check=True)
    partial.rename(lib)
    return lib


def _tool_version() -> str:
    proc = subprocess.run([CXX, "--version"], capture_output=True, text=True, check=False)
    return proc.stdout.splitlines()[0] if proc.stdout else "?"


def resolver_methods(sources: Sources) -> dict[str, tuple[str, set[str]]]:
    """TFLite builtin name without underscores (e.g. DEPTHWISECONV2D) -> the
    MicroMutableOpResolver method that adds it and the Register_* functions that method uses."""
    header = sources.tflm / "tensorflow/lite/micro/micro_mutable_op_resolver.h"
    parts = re.split(r"TfLiteStatus (Add\w+)\(", header.read_text())
    return {
        method[3:].upper(): (method, set(re.findall(r"Register_\w+", body)))
        for method, body in zip(parts[1::2], parts[2::2], strict=True)
        if method not in ("AddCustom", "AddBuiltin")
    }


def resolver(sources: Sources, op_names: Sequence[str]) -> dict[str, set[str]]:
    """The Add methods for the model's builtin ops and the Register_* functions they use."""
    methods = resolver_methods(sources)
    unknown = sorted({op for op in op_names if op.replace("_", "") not in methods})
    if unknown:
        raise runner.HarnessError(f"TFLM's op resolver has no Add method for {unknown}")
    return dict(methods[op.replace("_", "")] for op in op_names)


def _c_bytes(data: bytes) -> str:
    rows = [
        "\t" + ", ".join(f"0x{b:02x}" for b in data[i : i + 16]) + ","
        for i in range(0, len(data), 16)
    ]
    return "\n".join(rows)


_DTYPES = {
    np.dtype(np.float32): "TINYAOT_DTYPE_FLOAT32",
    np.dtype(np.int8): "TINYAOT_DTYPE_INT8",
    np.dtype(np.uint8): "TINYAOT_DTYPE_UINT8",
    np.dtype(np.int16): "TINYAOT_DTYPE_INT16",
    np.dtype(np.int32): "TINYAOT_DTYPE_INT32",
    np.dtype(np.int64): "TINYAOT_DTYPE_INT64",
    np.dtype(np.bool_): "TINYAOT_DTYPE_BOOL",
}


def _tensor_infos(kind: str, arrays: Sequence[np.ndarray]) -> list[str]:
    lines = []
    for i, a in enumerate(arrays):
        dims = ", ".join(str(d) for d in a.shape) or "1"
        lines.append(f"static const int32_t tflm_{kind}_shape{i}[] = {{{dims}}};")
    lines.append(f"static const struct tinyaot_tensor_info tflm_{kind}s[] = {{")
    for i, a in enumerate(arrays):
        lines.append(
            f'\t{{"{kind}{i}", {_DTYPES[a.dtype]}, {a.ndim}, tflm_{kind}_shape{i}, {a.nbytes}u, '
            "0.0f, 0},"
        )
    lines.append("};")
    return lines


def write_model(
    out: Path,
    model: Path,
    op_names: Sequence[str],
    inputs: Sequence[np.ndarray],
    outputs: Sequence[np.ndarray],
    arena_size: int,
    sources: Sources,
) -> None:
    """Write tflm.h, tflm_data.c and tflm_ops.h for `model` into `out`.

    op_names are the model's builtin operator names; inputs and outputs are example arrays
    (their shapes and dtypes make the model info main.c checks the input sets against).
    """
    out.mkdir(parents=True, exist_ok=True)
    methods = sorted(resolver(sources, op_names))
    (out / "tflm_ops.h").write_text(
        "/* Generated by bench/tflm_firmware.py: the model's ops for the resolver. */\n"
        f"#define TFLM_NUM_OPS {len(methods)}\n"
        # Streaming models' VAR_HANDLEs need TFLM's resource variables, one per handle.
        f"#define TFLM_NUM_RESOURCE_VARIABLES {list(op_names).count('VAR_HANDLE')}\n"
        "#define TFLM_OPS(X) " + " ".join(f"X({m})" for m in methods) + "\n"
    )
    (out / f"{NAME}.h").write_text(
        "/* Generated by bench/tflm_firmware.py: TFLite Micro behind the tinyaot model API. */\n"
        "#ifndef TFLM_H_\n#define TFLM_H_\n#include <tinyaot/tinyaot.h>\n"
        '#ifdef __cplusplus\nextern "C" {\n#endif\n'
        "extern const struct tinyaot_model_info tflm_info;\n"
        "extern const unsigned char tflm_model_data[];\n"
        "extern uint8_t tflm_arena[];\n"
        "uint8_t *tflm_input_ptr(void *ctx, int index);\n"
        "uint8_t *tflm_output_ptr(void *ctx, int index);\n"
        "int tflm_invoke(void *ctx);\n"
        "#ifdef __cplusplus\n}\n#endif\n#endif\n"
    )
    data = model.read_bytes()
    # The arena in a .bss.*_arena section, where the linker scripts put it between guards.
    arena_size = (arena_size + 15) // 16 * 16
    lines = [
        "/* Generated by bench/tflm_firmware.py: the model, TFLM's arena and the model info. */",
        f'#include "{NAME}.h"',
        "",
        f"const unsigned char tflm_model_data[{len(data)}] TINYAOT_ALIGNED(16) = {{",
        _c_bytes(data),
        "};",
        "",
        f"uint8_t tflm_arena[{arena_size}] TINYAOT_ALIGNED(16);",
        "",
        *_tensor_infos("input", inputs),
        *_tensor_infos("output", outputs),
        "",
        "const struct tinyaot_model_info tflm_info = {",
        f'\t"{model.stem}", {arena_size}u, 16u, {len(data)}u, {len(inputs)}, {len(outputs)},',
        "\ttflm_inputs, tflm_outputs, 0, 0u, 0u,",
        "};",
        "",
    ]
    (out / f"{NAME}_data.c").write_text("\n".join(lines))


def build(
    sources: Sources,
    model_dir: Path,
    op_names: Sequence[str],
    input_sets: Sequence[Sequence[bytes]],
    board: str,
    opt: str,
    workdir: Path,
    jobs: int,
) -> Path:
    """Compile the adapter and link the firmware for `board`; returns the ELF.

    main.c, startup.c, inputs.c and tflm_data.c go through runner (same flags as tinyaot's
    firmware); the adapter is C++ and is compiled here, then linked with the library.
    """
    cpu = runner.BOARD_CPU[runner._board(board)]
    lib = library(sources, cpu, opt, jobs, op_names)
    workdir.mkdir(parents=True, exist_ok=True)
    adapter = workdir / "tflm_adapter.o"
    _compile(
        ADAPTER, adapter, [*_flags(sources, cpu, opt), f"-I{model_dir}", f"-I{runner.CRT_INCLUDE}"]
    )
    return runner.build(
        model_dir,
        NAME,
        input_sets,
        board,
        opt,
        workdir,
        crt_sources=[],
        extra_ldflags=[
            str(adapter),
            "-Wl,--start-group",
            str(lib),
            "-lstdc++",
            "-lsupc++",
            "-lm",
            "-lc",
            "-lgcc",
            "-Wl,--end-group",
        ],
        jobs=1,
    )
