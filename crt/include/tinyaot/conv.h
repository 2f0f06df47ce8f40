/* CONV_2D: NHWC input, OHWI filter, per-output-channel requantisation. */
#ifndef TINYAOT_CONV_H_
#define TINYAOT_CONV_H_

#include <stddef.h>
#include <stdint.h>
#include <tinyaot/fixedpoint.h>

struct tinyaot_conv_dims {
	int32_t batches;
	int32_t in_h, in_w, in_c;
	int32_t out_h, out_w, out_c;
	int32_t k_h, k_w;
	int32_t stride_h, stride_w;
	int32_t pad_h, pad_w;
	/* Dilation: a window's taps are dil_h input rows and dil_w input columns apart (1: next to
	 * each other). The kernels that read a window as runs of whole rows take runs of one tap
	 * each where dil_w is over 1.
	 */
	int32_t dil_h, dil_w;
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

/*
 * The window of the pixel that step i of the pixel loop produces, clipped to the input: the
 * input pixel of its first tap inside (an index over batches * in_h * in_w), the kernel row and
 * column of that tap, and the rows and columns inside (rows 0, the rest 0, when none is). Taps
 * inside are d->dil_h input rows and d->dil_w input columns apart.
 */
struct tinyaot_conv_window {
	int32_t pix; /* the output pixel */
	int32_t first, ky, kx, rows, cols;
};

/* The taps [*k0, *k1) of a window axis of k taps, dil apart from start, inside [0, size). */
static inline void tinyaot_conv_axis(int32_t start, int32_t k, int32_t dil, int32_t size,
				     int32_t *k0, int32_t *k1)
{
	const int32_t room = size - start;
	const int32_t inside = room > 0 ? (room + dil - 1) / dil : 0;

	*k0 = start < 0 ? (dil - 1 - start) / dil : 0;
	*k1 = inside < k ? inside : k;
}

static inline struct tinyaot_conv_window tinyaot_conv_clip(const struct tinyaot_conv_dims *d,
							   int32_t i, int32_t pixels)
{
	struct tinyaot_conv_window w = {0, 0, 0, 0, 0, 0};
	int32_t b, oy, ox, ky0, ky1, kx0, kx1;

	w.pix = tinyaot_conv_pixel(d, i, pixels, &b, &oy, &ox);
	const int32_t y0 = oy * d->stride_h - d->pad_h;
	const int32_t x0 = ox * d->stride_w - d->pad_w;

	tinyaot_conv_axis(y0, d->k_h, d->dil_h, d->in_h, &ky0, &ky1);
	tinyaot_conv_axis(x0, d->k_w, d->dil_w, d->in_w, &kx0, &kx1);
	if (ky0 < ky1 && kx0 < kx1) {
		w.first = (b * d->in_h + y0 + ky0 * d->dil_h) * d->in_w + x0 + kx0 * d->dil_w;
		w.ky = ky0;
		w.kx = kx0;
		w.rows = ky1 - ky0;
		w.cols = kx1 - kx0;
	}
	return w;
}

/*
 * A clipped window's row as runs that are contiguous both in the input and in an output
 * channel's weights: its columns' channels in one run of *n, or where columns are dilated one
 * run of in_c per column, d->dil_w * in_c elements apart in the input and in_c in the weights.
 * Returns the number of runs.
 */
static inline int32_t tinyaot_conv_row_runs(const struct tinyaot_conv_dims *d,
					    const struct tinyaot_conv_window *w, int32_t *n)
{
	if (d->dil_w == 1) {
		*n = w->cols * d->in_c;
		return 1;
	}
	*n = d->in_c;
	return w->cols;
}

/*
 * The output channels a pixel's step j produces, once j channels are done: `width` (a power of
 * two) from *oc up, or one. Ascending, the channels in groups of `width` and then those left
 * over; with d->reverse, the same from the top, those left over first. A group's sums are all
 * read before it writes, so its outputs overwrite no input later than the one-by-one order would.
 */
static inline int32_t tinyaot_conv_group(const struct tinyaot_conv_dims *d, int32_t width,
					 int32_t j, int32_t *oc)
{
	const int32_t groups = d->out_c & -width;

	if (!d->reverse) {
		*oc = j;
		return j < groups ? width : 1;
	}
	if (j < d->out_c - groups) {
		*oc = d->out_c - 1 - j;
		return 1;
	}
	*oc = d->out_c - j - width;
	return width;
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
 * the bias widened to int64, int64 sums. TRANSPOSE_CONV takes it too.
 */
struct tinyaot_conv_s16_params {
	struct tinyaot_conv_dims d;
	/* 1: TFLM sums in int32 (an int32 bias) and requantises with the int32
	 * MultiplyByQuantizedMultiplier, which rounds twice where the int64 one rounds once.
	 */
	int32_t int32_sum;
	int32_t act_min, act_max;
	const int32_t *multiplier; /* one per output channel */
	const int32_t *shift;
};

/* Output channel oc's int16 from its sum. */
static inline int16_t tinyaot_conv_s16_out(const struct tinyaot_conv_s16_params *p, int64_t acc,
					   int32_t oc)
{
	const int32_t m = p->multiplier[oc], s = p->shift[oc];
	const int32_t v =
		p->int32_sum ? tinyaot_mbqm((int32_t)acc, m, s) : tinyaot_mbqm64(acc, m, s);

	return (int16_t)tinyaot_clamp_i32(v, p->act_min, p->act_max);
}

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
