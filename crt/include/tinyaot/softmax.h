/* SOFTMAX over the last dimension. */
#ifndef TINYAOT_SOFTMAX_H_
#define TINYAOT_SOFTMAX_H_

#include <stdint.h>

struct tinyaot_softmax_s8_params {
	int32_t rows;
	int32_t depth;
	int32_t input_multiplier; /* beta * input scale, as a Q31 with left shift */
	int32_t input_left_shift;
	int32_t diff_min; /* differences below this contribute nothing */
	/* NULL, or the Q0.31 exp of each difference d from 0 down to diff_min (at most 256),
	 * at -d: the compiler's, for ops with more elements than it has entries.
	 */
	const int32_t *exp_table;
};

/* int16 in and out: TFLite's two 513-entry interpolated tables, filled by the compiler. */
struct tinyaot_softmax_s16_params {
	int32_t rows;
	int32_t depth;
	int32_t input_multiplier; /* scales a difference so that [-65535, 0] is [-10, 0] */
	int32_t input_left_shift;
	const int16_t *exp_lut;   /* exp on [-10, 0], Q0.15 */
	const int16_t *recip_lut; /* 1 / (1 + x) on [0, 1], Q0.15 */
};

struct tinyaot_softmax_f32_params {
	int32_t rows;
	int32_t depth;
	float beta;
};

void tinyaot_softmax_s8(const struct tinyaot_softmax_s8_params *p, const int8_t *input,
			int8_t *output);
/* int8 in, int16 out (scale 1/65536, zero point -32768): the int8 steps, 16 output bits. */
void tinyaot_softmax_s8_s16(const struct tinyaot_softmax_s8_params *p, const int8_t *input,
			    int16_t *output);
/* int16 (zero points 0) to int16 of scale 1/32768. input and output may be the same buffer. */
void tinyaot_softmax_s16(const struct tinyaot_softmax_s16_params *p, const int16_t *input,
			 int16_t *output);
void tinyaot_softmax_f32(const struct tinyaot_softmax_f32_params *p, const float *input,
			 float *output);

#endif /* TINYAOT_SOFTMAX_H_ */
