/* TRANSPOSE_CONV: NHWC input, OHWI filter, per-output-channel requantisation. The params
 * are CONV_2D's (reverse unused); pad_h and pad_w are the padding of the convolution this
 * op transposes, the one that maps the output back onto the input.
 */
#ifndef TINYAOT_TRANSPOSE_CONV_H_
#define TINYAOT_TRANSPOSE_CONV_H_

#include <stdint.h>
#include <tinyaot/conv.h>

/* bias may be NULL. */
void tinyaot_transpose_conv_s8(const struct tinyaot_conv_s8_params *p, const int8_t *input,
			       const int8_t *filter, const int32_t *bias, int8_t *output);
void tinyaot_transpose_conv_s16(const struct tinyaot_conv_s16_params *p, const int16_t *input,
				const int8_t *filter, const int64_t *bias, int16_t *output);
void tinyaot_transpose_conv_f32(const struct tinyaot_conv_f32_params *p, const float *input,
				const float *filter, const float *bias, float *output);

#endif /* TINYAOT_TRANSPOSE_CONV_H_ */
