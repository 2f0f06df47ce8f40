/* LOG_SOFTMAX over the last dim. */
#ifndef TINYAOT_LOG_SOFTMAX_H_
#define TINYAOT_LOG_SOFTMAX_H_

#include <stdint.h>

struct tinyaot_log_softmax_s8_params {
	int32_t rows, depth;
	/* input scale * 2^26 as a Q31 and a left shift: a difference in Q5.26 */
	int32_t input_multiplier, input_left_shift;
	/* the inverse, to bring a Q5.26 log back to input steps */
	int32_t reverse_divisor, reverse_shift;
	int32_t diff_min; /* differences below this add nothing to the sum */
};

struct tinyaot_log_softmax_f32_params {
	int32_t rows, depth;
};

/* int8 output: scale 16/256, zero point 127. */
void tinyaot_log_softmax_s8(const struct tinyaot_log_softmax_s8_params *p, const int8_t *input,
			    int8_t *output);
void tinyaot_log_softmax_f32(const struct tinyaot_log_softmax_f32_params *p, const float *input,
			     float *output);

#endif /* TINYAOT_LOG_SOFTMAX_H_ */
