/* QUANTIZE: float32 to int8. (8-bit to 8-bit requantisation is a table: lut.h.) */
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

void tinyaot_quantize_f32(const struct tinyaot_quantize_f32_params *p, const float *input,
			  int8_t *output);

#endif /* TINYAOT_QUANTIZE_H_ */
