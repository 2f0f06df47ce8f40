/* QUANTIZE: float32 to int8, and int8 to int8 with another scale or zero point. */
#ifndef TINYAOT_QUANTIZE_H_
#define TINYAOT_QUANTIZE_H_

#include <stdint.h>

struct tinyaot_quantize_f32_params {
	int32_t size;
	/* The kernel divides by the scale, as TFLite does: multiplying by its
	 * reciprocal would round differently.
	 */
	float scale;
	int32_t zero_point;
};

struct tinyaot_quantize_s8_params {
	int32_t size;
	int32_t input_zero_point;
	int32_t output_zero_point;
	/* input scale / output scale, as a Q31 and a shift */
	int32_t multiplier, shift;
};

void tinyaot_quantize_f32(const struct tinyaot_quantize_f32_params *p, const float *input,
			  int8_t *output);
void tinyaot_quantize_s8(const struct tinyaot_quantize_s8_params *p, const int8_t *input,
			 int8_t *output);

#endif /* TINYAOT_QUANTIZE_H_ */
