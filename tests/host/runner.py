"""Builds a generated model with the host C compiler and runs it on given inputs.

The test program is generated per model because the input/output structs have
the model's own field names; everything else goes through the model's API.
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import threading
from pathlib import Path

from tinyaot.runtime_sources import runtime_sources

REPO = Path(__file__).resolve().parents[2]
CRT = REPO / "crt"
CFLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Werror")
# With this set (scripts/run-tests.sh sets it), builds without extra flags link the runtime
# compiled once with --coverage into DIR/obj, so every run of the session adds to one
# set of .gcda files there, which tests/crt_coverage.py reads.
COVERAGE_DIR = "TINYAOT_COVERAGE_DIR"
# -O0 (after CFLAGS' -O2) so that each line's count is its own, not folded into another's.
COVERAGE_FLAGS = ("-O0", "--coverage")
_objects_lock = threading.Lock()

_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "{name}.h"

static uint8_t second_arena[{NAME}_ARENA_SIZE] TINYAOT_ALIGNED({NAME}_ARENA_ALIGNMENT);

/* argv[1]: "invoke" (pinned arena, zero copy) or "run" (own buffers, second arena).
 * stdin: the input tensors' bytes in order; stdout: the outputs' bytes in order.
 */
int main(int argc, char **argv)
{{
	const struct tinyaot_model_info *info = &{name}_info;
	void *in[{NAME}_NUM_INPUTS], *keep[{NAME}_NUM_INPUTS], *out[{NAME}_NUM_OUTPUTS];
	int rc;

	if (argc != 2) {{
		return 64;
	}}
	for (int i = 0; i < {NAME}_NUM_INPUTS; i++) {{
		in[i] = malloc(info->inputs[i].size);
		keep[i] = malloc(info->inputs[i].size);
		if (fread(in[i], 1, info->inputs[i].size, stdin) != info->inputs[i].size) {{
			return 65;
		}}
		memcpy(keep[i], in[i], info->inputs[i].size);
	}}
	if (strcmp(argv[1], "invoke") == 0) {{
		for (int i = 0; i < {NAME}_NUM_INPUTS; i++) {{
			memcpy({name}_input_ptr(NULL, i), in[i], info->inputs[i].size);
		}}
		rc = {name}_invoke(NULL);
		for (int i = 0; i < {NAME}_NUM_OUTPUTS; i++) {{
			out[i] = {name}_output_ptr(NULL, i);
		}}
	}} else {{
		struct {name}_inputs ins = {{{in_fields}}};
		struct {name}_outputs outs;

		for (int i = 0; i < {NAME}_NUM_OUTPUTS; i++) {{
			out[i] = malloc(info->outputs[i].size);
		}}
		{out_assign}
		memset(second_arena, 0xA5, sizeof(second_arena));
		rc = {name}_run(&ins, &outs, second_arena);
		for (int i = 0; i < {NAME}_NUM_INPUTS; i++) {{
			if (memcmp(keep[i], in[i], info->inputs[i].size) != 0) {{
				return 66;
			}}
		}}
	}}
	if (rc != 0) {{
		return 67;
	}}
	for (int i = 0; i < {NAME}_NUM_OUTPUTS; i++) {{
		fwrite(out[i], 1, info->outputs[i].size, stdout);
	}}
	return 0;
}}
"""


def struct_fields(header: str, name: str, which: str) -> list[tuple[str, str]]:
    """(ctype, field) of struct <name>_<which> in the generated header."""
    body = re.search(rf"struct {name}_{which} \{{(.*?)\}};", header, re.S)
    assert body, f"struct {name}_{which} not found"
    return re.findall(r"(\w+) \*(\w+);", body.group(1))


def build(
    model_dir: Path,
    name: str,
    workdir: Path,
    extra_flags: tuple[str, ...] = (),
    runtime: list[str] | None = None,
) -> Path:
    """Compile the model folder, crt and a test main into an executable.

    runtime: crt/src objects from runtime_objects() built with the same extra_flags, linked
    instead of compiling the runtime again.
    """
    header = (model_dir / f"{name}.h").read_text()
    ins = struct_fields(header, name, "inputs")
    outs = struct_fields(header, name, "outputs")
    in_fields = ", ".join(f"({t} *)in[{i}]" for i, (t, _) in enumerate(ins))
    out_assign = " ".join(f"outs.{f} = ({t} *)out[{i}];" for i, (t, f) in enumerate(outs))
    main = workdir / "main.c"
    main.write_text(
        _MAIN.format(name=name, NAME=name.upper(), in_fields=in_fields, out_assign=out_assign)
    )
    exe = workdir / f"{name}_host"
    link([main, *sorted(model_dir.glob("*.c"))], model_dir, exe, extra_flags, runtime)
    return exe


def link(
    sources: list[Path],
    model_dir: Path,
    exe: Path,
    extra_flags: tuple[str, ...] = (),
    runtime: list[str] | None = None,
) -> None:
    """Build sources (a main and generated models from model_dir) with the runtime into exe:
    `runtime` as build() takes it, else the coverage objects or crt/src as build() says."""
    coverage = os.environ.get(COVERAGE_DIR)
    if runtime is None and coverage and not extra_flags:
        runtime = [*runtime_objects(Path(coverage) / "obj", COVERAGE_FLAGS), "--coverage"]
    if runtime is None:
        runtime = [str(s) for s in runtime_sources()]
    cmd = ["gcc", *CFLAGS, *extra_flags, "-I", str(model_dir), "-I", str(CRT / "include")]
    cmd += [str(s) for s in sources] + runtime + ["-o", str(exe)]
    _gcc(cmd)


def _gcc(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"host build failed:\n{' '.join(cmd)}\n{done.stderr}")


def runtime_objects(objdir: Path, flags: tuple[str, ...]) -> list[str]:
    """crt/src compiled with CFLAGS and flags into objdir, once for every build that links them.

    The objects are built in place (a coverage build's .gcda file goes beside the object the
    compiler wrote), so concurrent callers wait on a lock: threads on the lock here, processes
    on the file's.
    """
    sources = runtime_sources()
    objects = [objdir / f"{s.stem}.o" for s in sources]
    objdir.mkdir(parents=True, exist_ok=True)
    with _objects_lock, open(objdir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (objdir / "done").exists():
            for src, obj in zip(sources, objects, strict=True):
                _gcc(
                    ["gcc", *CFLAGS, *flags, "-I", str(CRT / "include"), "-c"]
                    + [str(src), "-o", str(obj)]
                )
            (objdir / "done").touch()
    return [str(o) for o in objects]


def run(exe: Path, inputs: list[bytes], mode: str = "invoke") -> bytes:
    done = subprocess.run(
        [str(exe), mode], input=b"".join(inputs), capture_output=True, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(f"{exe.name} {mode} exited with {done.returncode}: {done.stderr!r}")
    return done.stdout
