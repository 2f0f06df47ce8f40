/* RELU6. */
#ifndef TINYAOT_RELU6_H_
#define TINYAOT_RELU6_H_

#include <stdint.h>

struct tinyaot_relu6_s8_params {
	int32_t size;
	/* 0 and 6 in the input's quantisation: TFLite Micro clamps without requantising */
	int32_t zero, six;
};

struct tinyaot_relu6_f32_params {
	int32_t size;
};

void tinyaot_relu6_s8(const struct tinyaot_relu6_s8_params *p, const int8_t *input, int8_t *output);
void tinyaot_relu6_f32(const struct tinyaot_relu6_f32_params *p, const float *input, float *output);

#endif /* TINYAOT_RELU6_H_ */
