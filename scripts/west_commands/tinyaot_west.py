"""`west tinyaot compile|report|ops`: the tinyaot command line, run by west.

A thin wrapper: every argument after `tinyaot` goes unchanged to tinyaot.cli.main, so the
options, output and exit status are those of `python3 -m tinyaot`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from west.commands import WestCommand

SCRIPTS = Path(__file__).resolve().parents[1]

DESCRIPTION = """\
Compile a TensorFlow Lite model ahead of time into C (tinyaot).

  west tinyaot compile MODEL --name NAME --output-dir DIR [options]
  west tinyaot report MODEL [--json] [--elf IMAGE] [--svg FILE]
  west tinyaot ops

The arguments are those of `python3 -m tinyaot`; `west tinyaot --help` and
`west tinyaot compile --help` list them.
"""


class Tinyaot(WestCommand):
    def __init__(self) -> None:
        super().__init__(
            "tinyaot",
            # Keep in sync with scripts/west-commands.yml.
            "compile TensorFlow Lite models to C (tinyaot compile|report|ops)",
            DESCRIPTION,
            accepts_unknown_args=True,
        )

    def do_add_parser(self, parser_adder: argparse._SubParsersAction) -> argparse.ArgumentParser:
        # No options of its own, not even --help: everything belongs to the tinyaot CLI.
        parser = parser_adder.add_parser(
            self.name,
            help=self.help,
            description=self.description,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            add_help=False,
        )
        parser.add_argument("args", nargs=argparse.REMAINDER, help="tinyaot arguments")
        return parser

    def do_run(self, args: argparse.Namespace, unknown_args: list[str]) -> None:
        if str(SCRIPTS) not in sys.path:
            sys.path.insert(0, str(SCRIPTS))
        from tinyaot.cli import main

        status = main([*unknown_args, *args.args])
        if status:
            sys.exit(status)
