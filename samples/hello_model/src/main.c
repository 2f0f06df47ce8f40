/*
 * The TensorFlow Lite Micro hello_world model (a sine approximation, int8), compiled into C
 * at build time from the file prj.conf names. Runs a few inputs and checks each output against
 * the reference interpreter's, allowing one quantisation step.
 */
#include <stdio.h>

#include <zephyr/kernel.h>

#include <sine.h>
#include "expected.h"

static float dequantize(int q, const struct tinyaot_tensor_info *t)
{
	return (float)(q - t->zero_point) * t->scale;
}

int main(void)
{
	const struct tinyaot_tensor_info *in = &sine_info.inputs[0];
	const struct tinyaot_tensor_info *out = &sine_info.outputs[0];
	/* Both live in the pinned arena, so there is nothing to copy in or out. */
	int8_t *x = sine_input_ptr(NULL, 0);
	const int8_t *y = sine_output_ptr(NULL, 0);
	int failures = 0;

	printf("hello_model: %s, arena %u B, weights %u B, %d ops\n", sine_info.name,
	       (unsigned int)sine_info.arena_size, (unsigned int)sine_info.weights_size,
	       (int)sine_info.num_ops);
	for (size_t i = 0; i < ARRAY_SIZE(expected_points); i++) {
		const struct sine_point *p = &expected_points[i];

		*x = p->x;
		const int err = sine_invoke(NULL);

		if (err != TINYAOT_OK) {
			printf("hello_model: sine_invoke failed: %d\nhello_model: FAIL\n", err);
			return 0;
		}
		const int diff = *y - p->y;
		const bool ok = diff >= -1 && diff <= 1;

		printf("x = %.3f -> y = %.3f (reference %.3f, sin %.3f) %s\n",
		       (double)dequantize(p->x, in), (double)dequantize(*y, out),
		       (double)dequantize(p->y, out), p->sin_milli / 1000.0, ok ? "ok" : "FAIL");
		failures += ok ? 0 : 1;
	}
	printf("hello_model: %s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
