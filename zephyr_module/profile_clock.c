/*
 * The clock of the per-op profiling hook on Zephyr (CONFIG_TINYAOT_PROFILE). Cycles of the
 * system timer: on qemu targets they are only repeatable with icount.
 */
#include <zephyr/kernel.h>
#include <tinyaot/profile.h>

uint32_t tinyaot_profile_clock(void)
{
	return k_cycle_get_32();
}
