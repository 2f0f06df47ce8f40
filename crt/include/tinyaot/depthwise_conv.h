/* DEPTHWISE_CONV_2D: NHWC input, 1HWO filter, O = I * depth multiplier. */
#ifndef TINYAOT_DEPTHWISE_CONV_H_
#define TINYAOT_DEPTHWISE_CONV_H_

#include <stddef.h>
#include <stdint.h>
#include <tinyaot/conv.h>

struct tinyaot_dwconv_s8_params {
	struct tinyaot_conv_dims d;
	int32_t depth_multiplier;
	int32_t input_offset;
	int32_t output_offset;
	int32_t act_min, act_max;
	const int32_t *multiplier;
	const int32_t *shift;
};

/* int16x8: as struct tinyaot_conv_s16_params, activations of zero point 0. */
struct tinyaot_dwconv_s16_params {
	struct tinyaot_conv_dims d;
	int32_t depth_multiplier;
	int32_t act_min, act_max;
	const int32_t *multiplier;
	const int32_t *shift;
};

struct tinyaot_dwconv_f32_params {
	struct tinyaot_conv_dims d;
	int32_t depth_multiplier;
	float act_min, act_max;
};

void tinyaot_dwconv_s8(const struct tinyaot_dwconv_s8_params *p, const int8_t *input,
		       const int8_t *filter, const int32_t *bias, int8_t *output);

void tinyaot_dwconv_s16(const struct tinyaot_dwconv_s16_params *p, const int16_t *input,
			const int8_t *filter, const int64_t *bias, int16_t *output);

void tinyaot_dwconv_f32(const struct tinyaot_dwconv_f32_params *p, const float *input,
			const float *filter, const float *bias, float *output);

#endif /* TINYAOT_DEPTHWISE_CONV_H_ */
