/*
 * Two models in one SHARED_ARENA pool, run alternately: each must find its own results, and
 * both must live inside the pool.
 */
#include <stdint.h>
#include <stdio.h>

#include <demo_pool.h>

static int inside_pool(const void *p)
{
	const uint8_t *b = p;

	return b >= tinyaot_pool_demo && b < tinyaot_pool_demo + DEMO_POOL_SIZE;
}

int main(void)
{
	int8_t *xq = sine_q_input_ptr(NULL, 0);
	float *xf = sine_f_input_ptr(NULL, 0);

	if (!inside_pool(xq) || !inside_pool(xf) || !inside_pool(sine_f_output_ptr(NULL, 0))) {
		printf("FAIL: pinned arena is not the pool\n");
		return 1;
	}
	if ((uintptr_t)tinyaot_pool_demo % DEMO_POOL_ALIGNMENT != 0) {
		printf("FAIL: pool misaligned\n");
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		*xq = (int8_t)(-100 + 60 * i);
		if (sine_q_invoke(NULL) != TINYAOT_OK) {
			return 1;
		}
		const int yq = *(const int8_t *)sine_q_output_ptr(NULL, 0);

		xf = sine_f_input_ptr(NULL, 0);
		*xf = 0.5f * (float)i;
		if (sine_f_invoke(NULL) != TINYAOT_OK) {
			return 1;
		}
		/* Scaled to an integer so that the line compares exactly across C libraries. */
		const long yf = (long)(*(const float *)sine_f_output_ptr(NULL, 0) * 1e6f);

		printf("q %d %d f %d %ld\n", -100 + 60 * i, yq, i, yf);
	}
	printf("pool %lu align %lu members %d: sine_q %lu, sine_f %lu\n",
	       (unsigned long)DEMO_POOL_SIZE, (unsigned long)DEMO_POOL_ALIGNMENT, DEMO_POOL_MEMBERS,
	       (unsigned long)SINE_Q_ARENA_SIZE, (unsigned long)SINE_F_ARENA_SIZE);
	return 0;
}
