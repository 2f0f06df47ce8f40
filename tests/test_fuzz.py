"""Fuzzes the compiler's front door with mutated copies of the shared models.

Every case must end in a successful compile (files written) or exit status 2 with
one `error:` line and no files. A traceback, an internal error (exit 3), a second
stderr line, a hang or files left after an error fail the test, which lists the
failing cases. A deterministic sample of the cases that compile is then built with
AddressSanitizer and UBSan and run on random inputs, both entry points: any report, crash or
error return fails. A case is reproducible from its number alone:

    PYTHONPATH=scripts python3 tests/test_fuzz.py 123 456   # writes fuzz_123.tflite, ...
"""

from __future__ import annotations

import math
import os
import random
import shutil
import struct
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import flatbuffers
import inprocess
import numpy as np
import tflite
from host import runner
from reference import MODELS
from test_sanitizers import ENV, SANITIZE
from tinyaot import frontend

TESTS = Path(__file__).resolve().parent
CRT_INCLUDE = TESTS.parent / "crt" / "include"
SEED = 20240606
# Cases per model: the small models are fast to compile, so most cases go to them;
# every model gets some, since each has its own ops and table layouts.
PLAN = {
    "tflm_simple_add.tflite": 400,
    "tflm_hello_world_int8.tflite": 400,
    "tflm_hello_world_float32.tflite": 260,
    "tflm_micro_speech_int8.tflite": 400,
    "mlperf_tiny_kws_dscnn_int8.tflite": 240,
    "mlperf_tiny_ad_autoencoder_int8.tflite": 100,
    "mlperf_tiny_ic_resnet8_int8.tflite": 100,
    "mlperf_tiny_ic_resnet8_float32.tflite": 60,
    "mlperf_tiny_vww_mobilenetv1_int8.tflite": 60,
}
TIME_LIMIT = 10.0  # seconds per case; a clean compile of the largest model takes well under 1
SYNTAX_CHECK_EVERY = 50
# Compiled cases built and run under the sanitizers, the first ones (with distinct generated
# code) in an order drawn from SEED.
SANITIZED = 20
INTERESTING = [0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]


@dataclass
class Source:
    name: str
    data: bytes
    # Byte ranges of tensor data: mutations aim mostly at the tables around them,
    # since a flipped weight only changes numbers.
    payload: list[tuple[int, int]]
    # Where the fields that mean something are (shapes, scales, indices, options...).
    fields: list[tuple[int, str]]

    def structural_position(self, rng: random.Random) -> int:
        for _ in range(100):
            pos = rng.randrange(len(self.data))
            if not any(a <= pos < b for a, b in self.payload):
                return pos
        return rng.randrange(len(self.data))


def _payload_ranges(data: bytes) -> list[tuple[int, int]]:
    model = tflite.Model.GetRootAsModel(data, 0)
    ranges = []
    for i in range(model.BuffersLength()):
        buf = model.Buffers(i)
        n = buf.DataLength()
        if n > 64:
            start = buf._tab.Vector(buf._tab.Offset(4))
            ranges.append((start, start + n))
    return ranges


# Field slots of the schema's tables (tflite/schema.fbs), by kind of value.
_TENSOR = {0: "[i32", 1: "u8", 2: "u32", 5: "u8", 7: "[i32"}
_QUANT = {2: "[f32", 3: "[i64", 4: "u8", 6: "i32"}
_OPERATOR = {0: "u32", 1: "[i32", 2: "[i32", 3: "u8"}
_SUBGRAPH = {1: "[i32", 2: "[i32"}
_OPCODE = {0: "u8", 2: "i32", 3: "i32"}
_BUFFER = {1: "u64", 2: "u64"}
FIELD_VALUES = {
    "i32": [0, 1, -1, 2, 3, 4, 7, 8, 127, 128, 255, 256, 65535, 65536, 1 << 30, (1 << 31) - 1],
    "u32": [0, 1, 2, 3, 100, 0x7FFFFFFF, 0xFFFFFFFF],
    "u8": [0, 1, 2, 3, 4, 5, 6, 7, 8, 0x7F, 0x80, 0xFE, 0xFF],
    "i64": [0, 1, -1, -128, 127, 128, -129, 1 << 31, -(1 << 31) - 1, (1 << 63) - 1],
    "u64": [0, 1, 2, 1 << 32, (1 << 63) - 1],
    "f32": [0.0, -0.0, -1.0, 1e-45, 1e-38, 1e-20, 1e20, 3.4e38, math.inf, -math.inf, math.nan],
    "len": [0, 1, 2, 3, 5, 0x7FFFFFFF, 0xFFFFFFFF],
}
_FORMATS = {
    "i32": "<i",
    "u32": "<I",
    "u8": "<B",
    "i64": "<q",
    "u64": "<Q",
    "f32": "<f",
    "len": "<I",
}


def _fields(data: bytes) -> list[tuple[int, str]]:
    """(byte position, kind) of every scalar and vector element the compiler reads."""
    out: list[tuple[int, str]] = []

    def table(obj: object, slots: dict[int, str]) -> None:
        tab = obj._tab  # type: ignore[attr-defined]
        for slot, kind in slots.items():
            o = tab.Offset(4 + 2 * slot)
            if not o:
                continue
            if kind.startswith("["):
                start, n = tab.Vector(o), tab.VectorLen(o)
                width = 8 if kind == "[i64" else 4
                out.append((start - 4, "len"))
                out.extend((start + k * width, kind[1:]) for k in range(min(n, 64)))
            else:
                out.append((tab.Pos + o, kind))

    model = tflite.Model.GetRootAsModel(data, 0)
    for i in range(model.OperatorCodesLength()):
        table(model.OperatorCodes(i), _OPCODE)
    for i in range(model.BuffersLength()):
        table(model.Buffers(i), _BUFFER)
    sg = model.Subgraphs(0)
    table(sg, _SUBGRAPH)
    for i in range(sg.TensorsLength()):
        t = sg.Tensors(i)
        table(t, _TENSOR)
        if t.Quantization() is not None:
            table(t.Quantization(), _QUANT)
    for i in range(sg.OperatorsLength()):
        op = sg.Operators(i)
        table(op, _OPERATOR)
        opts = op.BuiltinOptions()
        if opts is not None:
            vtable = opts.Pos - opts.Get(flatbuffers.number_types.SOffsetTFlags, opts.Pos)
            slots = (opts.Get(flatbuffers.number_types.VOffsetTFlags, vtable) - 4) // 2
            for slot in range(slots):
                o = opts.Offset(4 + 2 * slot)
                if o:
                    out.append((opts.Pos + o, "u8"))
    return out


def sources() -> dict[str, Source]:
    out = {}
    for name in PLAN:
        data = (MODELS / name).read_bytes()
        out[name] = Source(name, data, _payload_ranges(data), _fields(data))
    return out


def mutate(src: Source, rng: random.Random) -> tuple[bytes, str]:
    """One random mutation (sometimes two) of the model; returns the bytes and what was done."""
    data = bytearray(src.data)
    done = []
    for _ in range(1 if rng.random() < 0.8 else 2):
        kind = rng.choice(["truncate", "bytes", "bits", "swap", "zero", "word", "field", "field"])
        if kind == "truncate":
            # Mostly in the tables at the end or the start, where the offsets live.
            n = rng.randrange(len(data)) if rng.random() < 0.5 else len(data) - rng.randrange(64)
            n = max(n, 0)
            del data[n:]
            done.append(f"truncate to {n}")
            if not data:
                break
            continue
        if len(data) < 8:
            break
        if kind == "bytes":
            for _ in range(rng.randint(1, 8)):
                pos = src.structural_position(rng) % len(data)
                data[pos] = rng.randrange(256)
                done.append(f"byte {pos}={data[pos]}")
        elif kind == "bits":
            for _ in range(rng.randint(1, 8)):
                pos, bit = src.structural_position(rng) % len(data), rng.randrange(8)
                data[pos] ^= 1 << bit
                done.append(f"bit {pos}.{bit}")
        elif kind == "swap":
            a = src.structural_position(rng) % len(data) & ~3
            b = src.structural_position(rng) % len(data) & ~3
            if a + 4 <= len(data) and b + 4 <= len(data):
                data[a : a + 4], data[b : b + 4] = data[b : b + 4], data[a : a + 4]
            done.append(f"swap words {a},{b}")
        elif kind == "zero":
            a = src.structural_position(rng) % len(data) & ~3
            n = 4 * rng.randint(1, 64)
            data[a : a + n] = bytes(len(data[a : a + n]))
            done.append(f"zero {a}+{n}")
        elif kind == "field":
            # A value at a place the compiler interprets: a shape, scale, index, option...
            for _ in range(rng.randint(1, 3)):
                pos, what = rng.choice(src.fields)
                value = rng.choice(FIELD_VALUES[what])
                raw = struct.pack(_FORMATS[what], value)
                if pos + len(raw) <= len(data):
                    data[pos : pos + len(raw)] = raw
                    done.append(f"{what} {pos}={value}")
        else:
            a = src.structural_position(rng) % len(data) & ~3
            v = rng.choice(INTERESTING) if rng.random() < 0.7 else rng.getrandbits(32)
            if rng.random() < 0.3:
                v = (-v) & 0xFFFFFFFF
            data[a : a + 4] = v.to_bytes(4, "little")[: len(data[a : a + 4])]
            done.append(f"word {a}={v:#x}")
    return bytes(data), "; ".join(done)


def case(i: int, srcs: dict[str, Source]) -> tuple[str, bytes, str]:
    """Case i: the model it mutates, the mutated bytes and a description; depends on i only."""
    n, names = i, list(PLAN)
    while n >= PLAN[names[0]] and len(names) > 1:
        n -= PLAN[names.pop(0)]
    name = names[0]
    rng = random.Random(SEED * 1_000_003 + i)
    data, what = mutate(srcs[name], rng)
    return name, data, what


def syntax_check(out: Path) -> str | None:
    cmd = ["gcc", "-std=c99", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"]
    cmd += ["-I", str(out), "-I", str(CRT_INCLUDE), str(out / "m.c")]
    done = subprocess.run(cmd, capture_output=True, text=True)
    return None if done.returncode == 0 else done.stderr.strip().splitlines()[0]


def test_fuzz_front_door(tmp_path):
    srcs = sources()
    total = sum(PLAN.values())
    counts: Counter[str] = Counter()
    failures: list[str] = []
    successes = 0
    model = tmp_path / "case.tflite"
    for i in range(total):
        name, data, what = case(i, srcs)
        model.write_bytes(data)
        out = tmp_path / f"out{i}"
        status, stderr = inprocess.compile_model(model, out, TIME_LIMIT)
        lines = stderr.splitlines()
        problem = None
        if status == 0:
            files = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
            if files != ["m.c", "m.h"]:
                problem = f"success but files {files}"
            elif stderr:
                problem = f"success with stderr {stderr!r}"
            else:
                successes += 1
                if successes % SYNTAX_CHECK_EVERY == 1:
                    counts["syntax checked"] += 1
                    error = syntax_check(out)
                    if error:
                        problem = f"generated C does not compile: {error}"
            outcome = "compiled"
        elif status == 2:
            outcome = "error"
            if len(lines) != 1 or not lines[0].startswith("error: "):
                problem = f"exit 2 with stderr {stderr!r}"
            elif out.exists():
                problem = "exit 2 but the output directory exists"
        else:
            outcome = {3: "internal error", "timeout": "timeout"}.get(status, "crash")
            problem = f"{status}: {lines[0] if lines else ''}"
        counts[outcome] += 1
        if problem:
            failures.append(f"case {i} ({name}: {what}): {problem}")
        shutil.rmtree(out, ignore_errors=True)
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    print(f"\nfuzz: {total} cases: {summary}")
    assert total >= 1000
    assert not failures, f"{len(failures)} of {total} cases failed ({summary}):\n" + "\n".join(
        failures[:50]
    )


def random_inputs(model: Path, rng: np.random.Generator) -> bytes:
    """Bytes for every input of the model as the compiler reads it: float32 in [-1, 1], other
    types any bit pattern."""
    graph = frontend.load(model)
    parts = []
    for t in (graph.tensors[i] for i in graph.inputs):
        if t.dtype.numpy == np.float32:
            parts.append(rng.uniform(-1.0, 1.0, t.num_elements).astype(np.float32).tobytes())
        else:
            parts.append(rng.bytes(t.num_elements * t.dtype.size))
    return b"".join(parts)


def sanitized_run(i: int, model: Path, gen: Path, crt: list[str]) -> str | None:
    """Build case i's generated code with the sanitizers and run it; what went wrong, if any."""
    exe = runner.build(gen, "m", gen.parent, extra_flags=SANITIZE, runtime=crt)
    data = random_inputs(model, np.random.default_rng(i))
    for mode in ("invoke", "run"):
        done = subprocess.run(
            [str(exe), mode], input=data, capture_output=True, env=ENV, timeout=300
        )
        report = done.stderr.decode(errors="replace")
        if done.returncode != 0 or report:
            return f"{mode}: exit {done.returncode}\n{report}"
    return None


def test_fuzz_compiled_cases_under_sanitizers(tmp_path):
    srcs = sources()
    total = sum(PLAN.values())
    picked: list[tuple[int, str, Path, Path]] = []
    seen: set[bytes] = set()
    for i in random.Random(SEED).sample(range(total), total):
        name, data, what = case(i, srcs)
        work = tmp_path / f"case{i}"
        work.mkdir()
        model = work / "case.tflite"
        model.write_bytes(data)
        status, _ = inprocess.compile_model(model, work / "gen", TIME_LIMIT)
        gen = work / "gen"
        code = status == 0 and (gen / "m.c").read_bytes() + (gen / "m.h").read_bytes()
        if not code or code in seen:
            shutil.rmtree(work)
            continue
        seen.add(code)
        picked.append((i, f"{name}: {what}", model, gen))
        if len(picked) == SANITIZED:
            break
    assert len(picked) == SANITIZED
    crt = runner.runtime_objects(tmp_path / "crt", SANITIZE)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        problems = list(pool.map(lambda p: sanitized_run(p[0], p[2], p[3], crt), picked))
    failures = [f"case {p[0]} ({p[1]}): {e}" for p, e in zip(picked, problems, strict=True) if e]
    assert not failures, "\n".join(failures)


if __name__ == "__main__":
    all_sources = sources()
    for arg in sys.argv[1:]:
        name, data, what = case(int(arg), all_sources)
        Path(f"fuzz_{arg}.tflite").write_bytes(data)
        print(f"fuzz_{arg}.tflite: {name}: {what}")
