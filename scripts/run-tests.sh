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
python3 -m pytest -q "$@"
