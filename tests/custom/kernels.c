/* The application side of tests/test_custom_ops.py: kernels of two custom ops. */
#include <string.h>

#include "m.h"

#define EXPECTED_OPTIONS "scale-v1"

/* MyRelu: max(x, 0) on float32, what the builtin RELU it replaces computes. */
int tinyaot_custom_MyRelu(const struct tinyaot_custom_call *call)
{
	const struct tinyaot_custom_tensor *in = &call->inputs[0];
	const struct tinyaot_custom_tensor *out = &call->outputs[0];
	const float *x = in->data;
	float *y = out->data;
	const size_t n = in->info->size / sizeof(float);

	if (call->num_inputs != 1 || call->num_outputs != 1 ||
	    in->info->dtype != TINYAOT_DTYPE_FLOAT32 || out->info->size != in->info->size ||
	    call->options != NULL || call->options_size != 0) {
		return -101;
	}
	for (size_t i = 0; i < n; i++) {
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	}
	return TINYAOT_OK;
}

/* my-scale: x times a constant vector along the last axis, the MUL it replaces; its options
 * must arrive byte for byte.
 */
int tinyaot_custom_my_scale(const struct tinyaot_custom_call *call)
{
	const struct tinyaot_custom_tensor *w = &call->inputs[1];
	const float *x = call->inputs[0].data;
	const float *scale = w->data;
	float *y = call->outputs[0].data;
	const size_t n = call->inputs[0].info->size / sizeof(float);
	const int32_t last = w->info->shape[w->info->ndim - 1];

	if (call->num_inputs != 2 || call->options_size != strlen(EXPECTED_OPTIONS) ||
	    memcmp(call->options, EXPECTED_OPTIONS, call->options_size) != 0) {
		return -102;
	}
	for (size_t i = 0; i < n; i++) {
		y[i] = x[i] * scale[i % (size_t)last];
	}
	return TINYAOT_OK;
}
