#!/usr/bin/env bash
# Sets up, compiles the MLPerf Tiny KWS model into C and runs it: the samples/kws firmware on
# qemu_cortex_m3 when a Zephyr tree is found (ZEPHYR_BASE, or the workspace ~/zephyrproject),
# otherwise samples/kws/host on this machine.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

scripts/install-deps.sh

zephyr_base="${ZEPHYR_BASE:-$HOME/zephyrproject/zephyr}"
if [ -f "$zephyr_base/VERSION" ]; then
	workspace="$(dirname "$zephyr_base")"
	# shellcheck disable=SC1091
	[ -f "$workspace/.venv/bin/activate" ] && source "$workspace/.venv/bin/activate"
	export ZEPHYR_BASE="$zephyr_base"
	export ZEPHYR_TOOLCHAIN_VARIANT="${ZEPHYR_TOOLCHAIN_VARIANT:-gnuarmemb}"
	export GNUARMEMB_TOOLCHAIN_PATH="${GNUARMEMB_TOOLCHAIN_PATH:-/usr}"
	echo "== Zephyr at $ZEPHYR_BASE: samples/kws on qemu_cortex_m3"
	west build -p always -b qemu_cortex_m3 samples/kws -d build/quickstart \
		-- -DZEPHYR_EXTRA_MODULES="$repo"
	# The firmware idles after main() returns; stop qemu once the summary line is out.
	(timeout 120 west build -d build/quickstart -t run || true) |
		sed -u '/kws: .* cycles, /q'
else
	echo "== no Zephyr tree (set ZEPHYR_BASE or create ~/zephyrproject): samples/kws on the host"
	cmake -S samples/kws/host -B build/quickstart-host -G Ninja
	cmake --build build/quickstart-host
	build/quickstart-host/kws_host
fi
