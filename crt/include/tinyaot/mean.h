/* MEAN over any set of axes of a tensor the compiler has folded to at most 4 dims. */
#ifndef TINYAOT_MEAN_H_
#define TINYAOT_MEAN_H_

#include <stdint.h>

/* Input element (o + r) for every output o of out[] and every reduced r of red[]:
 * each dim is either kept (red 1) or reduced (out 1), and adjacent dims of the same
 * kind are merged by the compiler.
 */
struct tinyaot_mean_shape {
	int32_t out[4];
	int32_t red[4];
	int32_t stride[4]; /* input elements */
};

struct tinyaot_mean_s8_params {
	struct tinyaot_mean_shape s;
	/* -input_zero_point * count, wrapped to 32 bits as TFLM's int64-to-int32 cast does. */
	int32_t sum_offset;
	/* in/out scale with 1/count folded in, as QuantizedMeanOrSum adjusts it. */
	int32_t multiplier, shift;
	int32_t output_offset;
};

struct tinyaot_mean_f32_params {
	struct tinyaot_mean_shape s;
	float count; /* elements averaged into each output */
};

void tinyaot_mean_s8(const struct tinyaot_mean_s8_params *p, const int8_t *input, int8_t *output);
/* int16 (int16x8) takes the int8 params: TFLM runs the same int32 steps on it. */
void tinyaot_mean_s16(const struct tinyaot_mean_s8_params *p, const int16_t *input,
		      int16_t *output);
void tinyaot_mean_f32(const struct tinyaot_mean_f32_params *p, const float *input, float *output);

#endif /* TINYAOT_MEAN_H_ */
