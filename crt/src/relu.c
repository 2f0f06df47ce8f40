/* RELU as TFLite Micro's ReluQuantized: requantise to the output scale, then clamp
 * at the output's zero.
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/relu.h>

void tinyaot_relu_s8(const struct tinyaot_relu_s8_params *p, const int8_t *input, int8_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const int32_t v =
			tinyaot_mbqm(input[i] - p->input_zero_point, p->multiplier, p->shift) +
			p->output_zero_point;

		output[i] = (int8_t)tinyaot_clamp_i32(v, p->act_min, p->act_max);
	}
}

void tinyaot_relu_f32(const struct tinyaot_relu_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float v = input[i];

		output[i] = v < 0.0f ? 0.0f : v;
	}
}
