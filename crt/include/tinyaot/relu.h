/* RELU, and LEAKY_RELU on int16 (int8 is a table, float32 in unary.h). */
#ifndef TINYAOT_RELU_H_
#define TINYAOT_RELU_H_

#include <stdint.h>

struct tinyaot_relu_s8_params {
	int32_t size;
	int32_t input_zero_point;
	int32_t output_zero_point;
	/* input scale / output scale, as a Q31 and a shift */
	int32_t multiplier, shift;
	int32_t act_min, act_max;
};

struct tinyaot_relu_f32_params {
	int32_t size;
};

/* One multiplier each side of zero: input scale times alpha, and input scale, over the output
 * scale. A negative alpha keeps its sign in the multiplier.
 */
struct tinyaot_leaky_relu_s16_params {
	int32_t size;
	int32_t input_zero_point;
	int32_t output_zero_point;
	int32_t alpha_multiplier, alpha_shift;
	int32_t identity_multiplier, identity_shift;
};

void tinyaot_leaky_relu_s16(const struct tinyaot_leaky_relu_s16_params *p, const int16_t *input,
			    int16_t *output);
void tinyaot_relu_s8(const struct tinyaot_relu_s8_params *p, const int8_t *input, int8_t *output);
void tinyaot_relu_f32(const struct tinyaot_relu_f32_params *p, const float *input, float *output);

#endif /* TINYAOT_RELU_H_ */
