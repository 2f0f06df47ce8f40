/* RELU6 as TFLite Micro computes it: int8 is a clamp in the input's quantisation, the
 * output's scale and zero point are not applied (TFLite itself would requantise).
 */
#include <tinyaot/relu6.h>

void tinyaot_relu6_s8(const struct tinyaot_relu6_s8_params *p, const int8_t *input, int8_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const int32_t v = input[i];

		output[i] = (int8_t)(v > p->six ? p->six : (v < p->zero ? p->zero : v));
	}
}

void tinyaot_relu6_f32(const struct tinyaot_relu6_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float v = input[i];

		output[i] = v > 6.0f ? 6.0f : (v < 0.0f ? 0.0f : v);
	}
}
