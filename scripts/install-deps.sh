#!/usr/bin/env bash
# Installs what the compiler, the tests and the Cortex-M3 runs need (Debian, as root).
# Quick when everything is already there, so the test command can always call it.
set -euo pipefail
cd "$(dirname "$0")/.."

# gcc-riscv64-unknown-elf and qemu-system-misc: the RISC-V 32-bit target of the Zephyr tests.
debs=(gcc gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm device-tree-compiler
      ninja-build cmake clang-format gperf gcc-riscv64-unknown-elf qemu-system-misc)
missing=()
for d in "${debs[@]}"; do
	dpkg -s "$d" >/dev/null 2>&1 || missing+=("$d")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
python3 -m pip install -q --disable-pip-version-check -r requirements-dev.txt
# Keras 2 for the LSTM tests' models (Keras 3's LSTM converts to a WHILE loop, not the fused
# op). It names the tensorflow package, which tensorflow-cpu above provides.
python3 -m pip install -q --disable-pip-version-check --no-deps tf-keras==2.21.0
