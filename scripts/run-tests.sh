#!/usr/bin/env bash
# The project's test command: dependencies, style checks, then every pytest suite
# (host, Cortex-M3 under qemu, and twister when a Zephyr tree is found).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

echo "== ruff"
ruff check scripts tests bench samples
ruff format --check scripts tests bench samples
echo "== clang-format"
find crt samples tests -name '*.[ch]' -print0 | xargs -0 clang-format --dry-run -Werror
echo "== pytest"
# The host builds link the runtime instrumented for coverage (tests/host/runner.py); the whole
# suite must then execute every function of crt/src and 90 % of its lines (tests/crt_coverage.py).
coverage=$(mktemp -d)
trap 'rm -rf "$coverage"' EXIT
TINYAOT_COVERAGE_DIR=$coverage python3 -m pytest -q --durations=25 "$@"
if [ $# -eq 0 ]; then
	echo "== crt/src coverage"
	python3 tests/crt_coverage.py "$coverage"
fi
