/*
 * Runs the int8 sine model on every int8 input and prints "x y" per line, for the test to
 * compare with TFLite Micro. Built with PROFILE, so it also counts the profiled ops.
 */
#include <stdint.h>
#include <stdio.h>

#include <sine.h>
#include <tinyaot/profile.h>

static uint32_t ticks;
static int32_t profiled_ops;

/* The host has no cycle counter worth the name here; a tick per call keeps results stable. */
uint32_t tinyaot_profile_clock(void)
{
	return ticks++;
}

void tinyaot_profile_op(const char *model, int32_t index, const char *op, uint32_t cycles)
{
	(void)model;
	(void)index;
	(void)op;
	(void)cycles;
	profiled_ops++;
}

int main(void)
{
	int8_t *x = sine_input_ptr(NULL, 0);
	const int8_t *y = sine_output_ptr(NULL, 0);

	for (int q = INT8_MIN; q <= INT8_MAX; q++) {
		*x = (int8_t)q;
		if (sine_invoke(NULL) != TINYAOT_OK) {
			return 1;
		}
		printf("%d %d\n", q, *y);
	}
	printf("profiled %ld ops of %ld\n", (long)profiled_ops, (long)sine_info.num_ops);
	printf("arena %lu\n", (unsigned long)SINE_ARENA_SIZE);
	return 0;
}
