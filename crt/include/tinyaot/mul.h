/* MUL with broadcasting. */
#ifndef TINYAOT_MUL_H_
#define TINYAOT_MUL_H_

#include <stdint.h>
#include <tinyaot/broadcast.h>

struct tinyaot_mul_s8_params {
	struct tinyaot_broadcast b;
	int32_t input1_offset, input2_offset; /* minus the zero points */
	int32_t output_offset;
	/* scale1 * scale2 / output scale, as a Q31 and a shift */
	int32_t output_multiplier, output_shift;
	int32_t act_min, act_max;
};

/*
 * int8 MUL whose requantisation the compiler rewrote for tinyaot_requant (tinyaot/requant.h,
 * exact over the products' range): the same elements in the same order as tinyaot_mul_s8.
 */
struct tinyaot_mul_fast_params {
	struct tinyaot_broadcast b;
	int32_t input1_offset, input2_offset; /* minus the zero points */
	int32_t mult, high, shift;            /* tinyaot_requant() of the product */
	int32_t act_min, act_max;
};

struct tinyaot_mul_f32_params {
	struct tinyaot_broadcast b;
	float act_min, act_max;
};

void tinyaot_mul_s8(const struct tinyaot_mul_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output);
void tinyaot_mul_fast_s8(const struct tinyaot_mul_fast_params *p, const int8_t *input1,
			 const int8_t *input2, int8_t *output);
/* int16 takes the int8 parameters (offsets 0, the int16 activation range). */
void tinyaot_mul_s16(const struct tinyaot_mul_s8_params *p, const int16_t *input1,
		     const int16_t *input2, int16_t *output);
void tinyaot_mul_f32(const struct tinyaot_mul_f32_params *p, const float *input1,
		     const float *input2, float *output);

#endif /* TINYAOT_MUL_H_ */
