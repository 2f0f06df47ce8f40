/* FULLY_CONNECTED: [batches, depth] x [units, depth]^T. */
#ifndef TINYAOT_FULLY_CONNECTED_H_
#define TINYAOT_FULLY_CONNECTED_H_

#include <stddef.h>
#include <stdint.h>

struct tinyaot_fc_s8_params {
	int32_t batches;
	int32_t depth;
	int32_t units;
	int32_t input_offset;
	int32_t filter_offset;
	int32_t output_offset;
	int32_t act_min, act_max;
	/* One per unit; per-tensor models repeat the single value. */
	const int32_t *multiplier;
	const int32_t *shift;
};

/* int16x8: int16 activations of zero point 0, symmetric int8 weights, the bias widened to
 * int64, int64 sums.
 */
struct tinyaot_fc_s16_params {
	int32_t batches;
	int32_t depth;
	int32_t units;
	int32_t int32_sum; /* as in struct tinyaot_conv_s16_params */
	int32_t act_min, act_max;
	const int32_t *multiplier; /* one per unit */
	const int32_t *shift;
};

struct tinyaot_fc_f32_params {
	int32_t batches;
	int32_t depth;
	int32_t units;
	float act_min, act_max;
};

void tinyaot_fc_s8(const struct tinyaot_fc_s8_params *p, const int8_t *input, const int8_t *filter,
		   const int32_t *bias, int8_t *output);

void tinyaot_fc_s16(const struct tinyaot_fc_s16_params *p, const int16_t *input,
		    const int8_t *filter, const int64_t *bias, int16_t *output);

void tinyaot_fc_f32(const struct tinyaot_fc_f32_params *p, const float *input, const float *filter,
		    const float *bias, float *output);

#endif /* TINYAOT_FULLY_CONNECTED_H_ */
