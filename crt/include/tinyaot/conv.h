/* CONV_2D: NHWC input, OHWI filter, per-output-channel requantisation. */
#ifndef TINYAOT_CONV_H_
#define TINYAOT_CONV_H_

#include <stddef.h>
#include <stdint.h>

struct tinyaot_conv_dims {
	int32_t batches;
	int32_t in_h, in_w, in_c;
	int32_t out_h, out_w, out_c;
	int32_t k_h, k_w;
	int32_t stride_h, stride_w;
	int32_t pad_h, pad_w;
	/* 1: produce output elements last to first, so that an output placed above an
	 * input it overlaps never overwrites input still to be read.
	 */
	int32_t reverse;
};

/* The output pixel the i-th step of the kernel's pixel loop produces. */
static inline int32_t tinyaot_conv_pixel(const struct tinyaot_conv_dims *d, int32_t i,
					 int32_t pixels, int32_t *b, int32_t *oy, int32_t *ox)
{
	const int32_t pix = d->reverse ? pixels - 1 - i : i;

	*ox = pix % d->out_w;
	*oy = (pix / d->out_w) % d->out_h;
	*b = pix / (d->out_w * d->out_h);
	return pix;
}

struct tinyaot_conv_s8_params {
	struct tinyaot_conv_dims d;
	int32_t input_offset; /* minus the input zero point */
	int32_t output_offset;
	int32_t act_min, act_max;
	const int32_t *multiplier; /* one per output channel */
	const int32_t *shift;
};

/* int16x8: int16 activations of zero point 0 (TFLM ignores the zero points), int8 weights,
 * int64 bias and accumulator. TRANSPOSE_CONV takes it too.
 */
struct tinyaot_conv_s16_params {
	struct tinyaot_conv_dims d;
	int32_t act_min, act_max;
	const int32_t *multiplier; /* one per output channel */
	const int32_t *shift;
};

struct tinyaot_conv_f32_params {
	struct tinyaot_conv_dims d;
	float act_min, act_max;
};

void tinyaot_conv_s8(const struct tinyaot_conv_s8_params *p, const int8_t *input,
		     const int8_t *filter, const int32_t *bias, int8_t *output);

void tinyaot_conv_s16(const struct tinyaot_conv_s16_params *p, const int16_t *input,
		      const int8_t *filter, const int64_t *bias, int16_t *output);

void tinyaot_conv_f32(const struct tinyaot_conv_f32_params *p, const float *input,
		      const float *filter, const float *bias, float *output);

#endif /* TINYAOT_CONV_H_ */
