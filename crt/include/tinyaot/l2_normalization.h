/* L2_NORMALIZATION along the last dim. */
#ifndef TINYAOT_L2_NORMALIZATION_H_
#define TINYAOT_L2_NORMALIZATION_H_

#include <stdint.h>

struct tinyaot_l2_normalization_s8_params {
	int32_t rows, depth;
	int32_t input_zero_point;
};

struct tinyaot_l2_normalization_f32_params {
	int32_t rows, depth;
};

/* int8 output in Q0.7 (scale 1/128, zero point 0), whatever its tensor says, as in TFLM. */
void tinyaot_l2_normalization_s8(const struct tinyaot_l2_normalization_s8_params *p,
				 const int8_t *input, int8_t *output);
void tinyaot_l2_normalization_f32(const struct tinyaot_l2_normalization_f32_params *p,
				  const float *input, float *output);

#endif /* TINYAOT_L2_NORMALIZATION_H_ */
