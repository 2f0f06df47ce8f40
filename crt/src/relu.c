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

/* LEAKY_RELU as TFLite Micro's QuantizeLeakyRelu, which takes a negative alpha's multiplier
 * negated and negates the product back: SaturatingRoundingDoublingHighMul rounds halves up,
 * so the signed multiplier would round some products the other way.
 */
void tinyaot_leaky_relu_s16(const struct tinyaot_leaky_relu_s16_params *p, const int16_t *input,
			    int16_t *output)
{
	const int32_t negate = p->alpha_multiplier < 0;
	const int32_t alpha = negate ? -p->alpha_multiplier : p->alpha_multiplier;

	for (int32_t i = 0; i < p->size; i++) {
		const int32_t x = input[i] - p->input_zero_point;
		int32_t v;

		if (x >= 0) {
			v = tinyaot_mbqm(x, p->identity_multiplier, p->identity_shift);
		} else {
			v = tinyaot_mbqm(x, alpha, p->alpha_shift);
			v = negate ? -v : v;
		}
		output[i] =
			(int16_t)tinyaot_clamp_i32(v + p->output_zero_point, INT16_MIN, INT16_MAX);
	}
}
