/*
 * DEPTHWISE_CONV_2D int16x8, fast path: as tinyaot/conv_fast_s16.h, each channel's sum taken in
 * int32 from its bias where the compiler shows it cannot leave int32, and requantised by
 * tinyaot_mbqm64_pre (TFLite Micro's int64 MultiplyByQuantizedMultiplier). Elements in the
 * order of tinyaot_dwconv_s16: pixel by pixel, channels ascending, or exactly the reverse.
 */
#ifndef TINYAOT_DWCONV_FAST_S16_H_
#define TINYAOT_DWCONV_FAST_S16_H_

#include <stdint.h>
#include <tinyaot/conv.h>

struct tinyaot_dwconv_fast_s16_params {
	struct tinyaot_conv_dims d;
	int32_t depth_multiplier;
	int32_t act_min, act_max;
	/* Per output channel: the bias (0 without one), the multiplier rounded to 16 bits and the
	 * total shift of tinyaot_mbqm64_pre.
	 */
	const int32_t *bias;
	const int32_t *multiplier;
	const int32_t *shift;
};

void tinyaot_dwconv_fast_s16(const struct tinyaot_dwconv_fast_s16_params *p, const int16_t *input,
			     const int8_t *filter, int16_t *output);

#endif /* TINYAOT_DWCONV_FAST_S16_H_ */
