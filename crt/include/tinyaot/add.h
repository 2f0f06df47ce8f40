/* ADD with broadcasting. */
#ifndef TINYAOT_ADD_H_
#define TINYAOT_ADD_H_

#include <stdint.h>
#include <tinyaot/broadcast.h>

struct tinyaot_add_s8_params {
	struct tinyaot_broadcast b;
	int32_t left_shift;
	int32_t input1_offset, input1_multiplier, input1_shift;
	int32_t input2_offset, input2_multiplier, input2_shift;
	int32_t output_offset, output_multiplier, output_shift;
	int32_t act_min, act_max;
};

struct tinyaot_add_f32_params {
	struct tinyaot_broadcast b;
	float act_min, act_max;
};

void tinyaot_add_s8(const struct tinyaot_add_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output);
/* int16 takes the int8 parameters with a left shift of 15 and the int16 activation range. */
void tinyaot_add_s16(const struct tinyaot_add_s8_params *p, const int16_t *input1,
		     const int16_t *input2, int16_t *output);
void tinyaot_add_f32(const struct tinyaot_add_f32_params *p, const float *input1,
		     const float *input2, float *output);

#endif /* TINYAOT_ADD_H_ */
