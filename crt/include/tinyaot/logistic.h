/* LOGISTIC (sigmoid). */
#ifndef TINYAOT_LOGISTIC_H_
#define TINYAOT_LOGISTIC_H_

#include <stdint.h>

struct tinyaot_logistic_s8_params {
	int32_t size;
	int32_t input_zero_point;
	/* |input - zero point| at or beyond this saturates the output */
	int32_t input_range_radius;
	/* input scale * 2^27, as a Q31 and a left shift: the input in Q4.27 */
	int32_t input_multiplier, input_left_shift;
};

struct tinyaot_logistic_f32_params {
	int32_t size;
};

void tinyaot_logistic_s8(const struct tinyaot_logistic_s8_params *p, const int8_t *input,
			 int8_t *output);
void tinyaot_logistic_f32(const struct tinyaot_logistic_f32_params *p, const float *input,
			  float *output);

#endif /* TINYAOT_LOGISTIC_H_ */
