/*
 * A model with a custom op: a small float32 MLP whose LEAKY_RELU was replaced by the custom op
 * "AppLeakyRelu" (model/leaky_mlp.tflite, written by gen_model.py). prj.conf declares the op
 * (CONFIG_TINYAOT_CUSTOM_OPS), so the generated mlp.c calls tinyaot_custom_AppLeakyRelu(),
 * defined here. The outputs are checked against what the TFLite Micro interpreter gives on
 * the model with the builtin op (src/expected.h, tests/zephyr/gen_expected.py): a kernel that
 * computed anything else, or ignored its options, would fail them.
 */
#include <stdio.h>
#include <string.h>

#include <zephyr/kernel.h>

#include <mlp.h>
#include "expected.h"

/* Float32 outputs agree with the reference within this share of their largest magnitude. */
#define RTOL 1e-5f

/* AppLeakyRelu: y = x > 0 ? x : alpha * x, on float32, as TFLite Micro's LEAKY_RELU computes
 * it; alpha is the op's custom options, 4 bytes of little-endian float32.
 */
int tinyaot_custom_AppLeakyRelu(const struct tinyaot_custom_call *call)
{
	const struct tinyaot_custom_tensor *in = &call->inputs[0];
	const struct tinyaot_custom_tensor *out = &call->outputs[0];
	float alpha;

	if (call->num_inputs != 1 || call->num_outputs != 1 ||
	    in->info->dtype != TINYAOT_DTYPE_FLOAT32 || out->info->dtype != TINYAOT_DTYPE_FLOAT32 ||
	    out->info->size != in->info->size || call->options_size != sizeof(alpha)) {
		return TINYAOT_ERR_INVALID_ARGUMENT;
	}
	memcpy(&alpha, call->options, sizeof(alpha));

	const float *x = in->data;
	float *y = out->data;

	for (size_t i = 0; i < in->info->size / sizeof(float); i++) {
		y[i] = x[i] > 0.0f ? x[i] : x[i] * alpha;
	}
	return TINYAOT_OK;
}

static float magnitude(float v)
{
	return v < 0.0f ? -v : v;
}

int main(void)
{
	float *x = mlp_input_ptr(NULL, 0);
	const float *y = mlp_output_ptr(NULL, 0);
	int failures = 0;

	printf("custom_op: %s, arena %u B, weights %u B, %d ops\n", mlp_info.name,
	       (unsigned int)mlp_info.arena_size, (unsigned int)mlp_info.weights_size,
	       (int)mlp_info.num_ops);
	for (int s = 0; s < SAMPLE_SETS; s++) {
		const float *want = &sample_expected[s * SAMPLE_OUTPUTS];
		float largest = 0.0f;
		float worst = 0.0f;

		memcpy(x, &sample_inputs[s * SAMPLE_INPUTS], SAMPLE_INPUTS * sizeof(float));
		const int err = mlp_invoke(NULL);

		if (err != TINYAOT_OK) {
			printf("custom_op: mlp_invoke failed: %d\ncustom_op: FAIL\n", err);
			return 0;
		}
		printf("set %d:", s);
		for (int i = 0; i < SAMPLE_OUTPUTS; i++) {
			const float diff = magnitude(y[i] - want[i]);

			largest = magnitude(want[i]) > largest ? magnitude(want[i]) : largest;
			worst = diff > worst ? diff : worst;
			printf(" %.4f", (double)y[i]);
		}
		const bool ok = worst <= RTOL * largest;

		printf(" %s\n", ok ? "ok" : "FAIL");
		failures += ok ? 0 : 1;
	}
	printf("custom_op: %s\n", failures == 0 ? "PASS" : "FAIL");
	return 0;
}
