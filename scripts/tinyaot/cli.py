"""Command line: `python3 -m tinyaot compile|report|ops` (also `west tinyaot ...`).

Bad input never shows a traceback: one `error: ...` line on stderr and exit
status 2; a compiler bug is reported the same way with status 3.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import codegen, fast, report, tflm_ops
from .compiler import Compiled, Options, compile_model
from .errors import CompileError
from .ops import OPS
from .patch import DEFAULT_MAX_EXTRA_MACS, KEEP

EXIT_ERROR = 2
EXIT_INTERNAL = 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise CompileError(f"{message} (see '{self.prog} --help')")


def _options(args: argparse.Namespace) -> Options:
    return Options(
        name=args.name,
        arena_alignment=args.arena_alignment,
        arena_section=args.arena_section,
        weights_section=args.weights_section,
        arena_budget=args.arena_budget,
        smallest_arena=args.smallest_arena,
        max_extra_macs=args.max_extra_macs,
        patch_stage=args.patch_stage,
        shared_arena=args.shared_arena,
        custom_ops=tuple(args.custom_op),
        speed_scratch=args.speed_scratch,
        speed_flash=args.speed_flash,
    )


def _percent(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole percentage")
    return int(text)


def _stage(text: str) -> tuple[int, int, str]:
    layers, _, rest = text.partition(":")
    stripes, _, keep = rest.partition(":")
    if not (layers.isdigit() and stripes.isdigit() and keep in ("", *KEEP)):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not LAYERS:STRIPES[:KEEP], KEEP one of {', '.join(KEEP)}"
        )
    return int(layers), int(stripes), keep or "none"


def _compile(args: argparse.Namespace) -> Compiled:
    # The ops read fast.ENABLED while lowering; restored so that an in-process caller keeps its own.
    saved = fast.ENABLED
    fast.ENABLED = saved and not args.no_fast_kernels
    try:
        return compile_model(args.model, _options(args))
    finally:
        fast.ENABLED = saved


def write_atomically(files: dict[str, str], out_dir: Path) -> None:
    """All files appear, or none: each is written beside its place, then renamed."""
    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CompileError(f"cannot create output directory '{out_dir}': {exc.strerror}") from None
    temps: list[tuple[str, Path]] = []
    # mkstemp creates 0600 files; generated sources get the mode any new file would.
    umask = os.umask(0)
    os.umask(umask)
    try:
        for fname, text in sorted(files.items()):
            fd, tmp = tempfile.mkstemp(prefix=f".{fname}.", dir=out_dir)
            temps.append((fname, Path(tmp)))
            os.fchmod(fd, 0o666 & ~umask)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        for fname, tmp in temps:
            os.replace(tmp, out_dir / fname)
    except OSError as exc:
        for _, tmp in temps:
            tmp.unlink(missing_ok=True)
        if created:
            try:
                out_dir.rmdir()
            except OSError:
                pass
        raise CompileError(f"cannot write to '{out_dir}': {exc.strerror}") from None


def cmd_compile(args: argparse.Namespace) -> int:
    compiled = _compile(args)
    files = codegen.generate(compiled)
    if args.json_report:
        # The code is not linked yet: the build fills "code" in after the link (link-report).
        files[f"{args.name}_report.json"] = report.json_text(compiled, None)
    write_atomically(files, Path(args.output_dir))
    if not args.quiet:
        print(report.summary(compiled))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    compiled = _compile(args)
    code = None
    if args.elf:
        generated = "".join(codegen.generate(compiled).values())
        code = report.link_size(args.name, generated, Path(args.elf), args.nm)
        if code.model == 0:
            raise CompileError(f"'{args.elf}' has no code of model '{args.name}' (--name?)")
    if args.json:
        print(report.json_text(compiled, code or report.code_size(compiled)), end="")
    else:
        print(report.text(compiled, code=code), end="")
    if args.svg:
        Path(args.svg).write_text(report.svg(compiled), encoding="utf-8")
    return 0


def cmd_link_report(args: argparse.Namespace) -> int:
    # A CMake list arrives as one argument when the build does not expand lists.
    for path in (p for arg in args.reports for p in arg.split(";") if p):
        try:
            report.add_link_size(Path(path), Path(args.elf), args.nm)
        except OSError as exc:
            raise CompileError(f"cannot update '{path}': {exc.strerror}") from None
    return 0


def cmd_ops(args: argparse.Namespace) -> int:
    print(ops_table(markdown=args.markdown), end="")
    return 0


def ops_table(markdown: bool = False) -> str:
    """Every op tinyaot or TFLite Micro has: our dtypes (or "-"), whether TFLite Micro has it,
    and our notes. The markdown form is README's table."""
    names = sorted(set(OPS) | tflm_ops.BUILTINS | tflm_ops.CUSTOM, key=lambda n: n.upper())
    rows = []
    for name in names:
        op = OPS.get(name)
        in_tflm = "yes" if name in tflm_ops.BUILTINS | tflm_ops.CUSTOM else "no"
        dtypes = op.signature() if op else "-"
        rows.append((name, dtypes, in_tflm, op.notes if op else ""))
    if markdown:
        lines = ["| op | tinyaot dtypes | in TFLite Micro | notes |", "|---|---|---|---|"]
        lines += [
            f"| {n} | {d} | {t} | {notes} |".replace(" |  |", " | |") for n, d, t, notes in rows
        ]
        return "\n".join(line.rstrip() for line in lines) + "\n"
    width = max(len(n) for n, *_ in rows)
    head = f"{'op':<{width}}  {'tinyaot dtypes':<30}  {'TFLM':<4}  notes"
    lines = [head] + [f"{n:<{width}}  {d:<30}  {t:<4}  {notes}" for n, d, t, notes in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="the .tflite file")
    p.add_argument("--name", default="model", help="C prefix of the generated API (default: model)")
    p.add_argument(
        "--arena-alignment",
        type=int,
        default=16,
        metavar="BYTES",
        help="alignment of the arena (default 16)",
    )
    p.add_argument(
        "--arena-section",
        metavar="SECTION",
        help="linker section of the pinned arena (default: .bss)",
    )
    p.add_argument(
        "--weights-section",
        metavar="SECTION",
        help="linker section of the weights and constant tables, e.g. in external flash "
        "(default: .rodata)",
    )
    p.add_argument(
        "--shared-arena",
        metavar="POOL",
        help="share the pinned arena with every model compiled with the same POOL",
    )
    p.add_argument(
        "--arena-budget",
        type=int,
        default=0,
        metavar="BYTES",
        help="fit the arena in this: when the layer-by-layer plan needs more, run the first "
        "layers stripe by stripe (patch-based); fail when nothing fits (0: no limit)",
    )
    p.add_argument(
        "--smallest-arena",
        action="store_true",
        help="the patch plan with the smallest arena, whatever the budget",
    )
    p.add_argument(
        "--max-extra-macs",
        type=int,
        default=DEFAULT_MAX_EXTRA_MACS,
        metavar="PERCENT",
        help="the extra MACs a patch plan may cost, in percent of the model's "
        f"(default {DEFAULT_MAX_EXTRA_MACS})",
    )
    p.add_argument(
        "--patch-stage",
        type=_stage,
        metavar="LAYERS:STRIPES[:KEEP]",
        help="run the first LAYERS windowed layers in STRIPES stripes, whatever the budget; "
        "KEEP says which layers keep the rows the next stripe shares instead of recomputing "
        "them: none (the default), inner (all but those reading the stage input) or all",
    )
    p.add_argument(
        "--speed-scratch",
        type=_percent,
        default=0,
        metavar="PERCENT",
        help="let the arena grow by up to PERCENT %% for the scratch that makes kernels faster "
        "on cores with the DSP extension (default 0: only scratch that costs no byte)",
    )
    p.add_argument(
        "--speed-flash",
        type=_percent,
        default=0,
        metavar="PERCENT",
        help="let the weights grow by up to PERCENT %% on cores with the DSP extension, for "
        "int16 copies of the convolution weights that make those layers faster there, the "
        "layers with the most MACs per byte first (default 0: none)",
    )
    p.add_argument(
        "--custom-op",
        action="append",
        default=[],
        metavar="CODE",
        help="a custom op whose kernel the application links: int tinyaot_custom_<CODE>"
        "(const struct tinyaot_custom_call *call) (repeatable)",
    )
    p.add_argument(
        "--no-fast-kernels",
        action="store_true",
        help="use only the portable C kernels (smaller code; the reference to compare with)",
    )


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tinyaot", description="Compile TensorFlow Lite models ahead of time to C.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser("compile", help="generate <name>.h and <name>.c")
    _model_args(c)
    c.add_argument("--output-dir", required=True, metavar="DIR", help="where the files go")
    c.add_argument("--quiet", action="store_true", help="do not print the size summary")
    c.add_argument(
        "--json-report",
        action="store_true",
        help="also write <name>_report.json (the report as data, without the code size)",
    )
    c.set_defaults(func=cmd_compile)
    r = sub.add_parser("report", help="per-op and per-tensor memory, MACs and sizes")
    _model_args(r)
    r.add_argument("--svg", metavar="FILE", help="also draw the arena over time")
    r.add_argument("--json", action="store_true", help="the report as JSON (schema: doc/index.rst)")
    r.add_argument(
        "--elf",
        metavar="FILE",
        help="a linked image holding the model: the code size comes from its symbols "
        "rather than from an estimate",
    )
    r.add_argument("--nm", default="nm", metavar="PROGRAM", help="the nm to read --elf with")
    r.set_defaults(func=cmd_report)
    lr = sub.add_parser(
        "link-report", help="fill in the code size of <name>_report.json files from a link"
    )
    lr.add_argument("--elf", required=True, metavar="FILE", help="the linked image")
    lr.add_argument("--nm", default="nm", metavar="PROGRAM", help="the nm to read it with")
    lr.add_argument(
        "reports",
        nargs="+",
        metavar="REPORT",
        help="<name>_report.json files (or one CMake list of them)",
    )
    lr.set_defaults(func=cmd_link_report)
    o = sub.add_parser("ops", help="list the ops of tinyaot and TFLite Micro, with dtypes")
    o.add_argument("--markdown", action="store_true", help="as README's table")
    o.set_defaults(func=cmd_ops)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
        return int(args.func(args))
    except CompileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # `tinyaot report ... | head`: the reader left; nothing more to say.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except RecursionError:
        print("error: the model is nested too deeply to read", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - a bug must not print a traceback into a build log
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(f"error: internal compiler error: {type(exc).__name__}: {first}", file=sys.stderr)
        return EXIT_INTERNAL
