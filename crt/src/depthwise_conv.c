/* Reference DEPTHWISE_CONV_2D, in the accumulation order of TFLite's reference kernels.
 * Output elements are produced pixel by pixel, channels ascending (or exactly the
 * reverse): output channel c reads one input channel, which lets the output overlap
 * its input within a row and a pixel of the window (see scripts/tinyaot/inplace.py).
 */
#include <tinyaot/depthwise_conv.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/mac_f32.h>

void tinyaot_dwconv_s8(const struct tinyaot_dwconv_s8_params *p, const int8_t *input,
		       const int8_t *filter, const int32_t *bias, int8_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox;
		const int32_t pix = tinyaot_conv_pixel(d, i, pixels, &b, &oy, &ox);
		const int8_t *in_b = input + b * d->in_h * d->in_w * d->in_c;
		const int32_t y0 = oy * d->stride_h - d->pad_h;
		const int32_t x0 = ox * d->stride_w - d->pad_w;

		for (int32_t j = 0; j < d->out_c; j++) {
			const int32_t oc = d->reverse ? d->out_c - 1 - j : j;
			const int32_t ic = oc / p->depth_multiplier;
			int32_t acc = 0;

			for (int32_t ky = 0; ky < d->k_h; ky++) {
				const int32_t y = y0 + ky * d->dil_h;

				if (y < 0 || y >= d->in_h) {
					continue;
				}
				for (int32_t kx = 0; kx < d->k_w; kx++) {
					const int32_t x = x0 + kx * d->dil_w;

					if (x < 0 || x >= d->in_w) {
						continue;
					}
					const int32_t v = in_b[(y * d->in_w + x) * d->in_c + ic];
					const int32_t w =
						filter[(ky * d->k_w + kx) * d->out_c + oc];

					acc += w * (v + p->input_offset);
				}
			}
			if (bias != NULL) {
				acc += bias[oc];
			}
			acc = tinyaot_mbqm(acc, p->multiplier[oc], p->shift[oc]);
			acc = tinyaot_clamp_i32(acc + p->output_offset, p->act_min, p->act_max);
			output[pix * d->out_c + oc] = (int8_t)acc;
		}
	}
}

/* int16x8: TFLM's int64 accumulator, no offsets. */
void tinyaot_dwconv_s16(const struct tinyaot_dwconv_s16_params *p, const int16_t *input,
			const int8_t *filter, const int64_t *bias, int16_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t row = d->dil_h * d->in_w * d->in_c, k_row = d->k_w * d->out_c;
	const int32_t col = d->dil_w * d->in_c;

	for (int32_t i = 0; i < pixels; i++) {
		/* The window clipped to the input, walked by pointer steps. */
		const struct tinyaot_conv_window w = tinyaot_conv_clip(d, i, pixels);

		for (int32_t j = 0; j < d->out_c; j++) {
			const int32_t oc = d->reverse ? d->out_c - 1 - j : j;
			const int16_t *in = input + w.first * d->in_c + oc / p->depth_multiplier;
			const int8_t *f = filter + w.ky * k_row + w.kx * d->out_c + oc;
			/* SMLAL adds each product into int64, as TFLite Micro's accumulator. */
			int64_t acc = bias != NULL ? bias[oc] : 0;

			for (int32_t r = 0; r < w.rows; r++, in += row, f += k_row) {
				const int16_t *x = in;
				const int8_t *fk = f;

				for (int32_t c = 0; c < w.cols; c++, x += col, fk += d->out_c) {
					acc += (int64_t)*fk * *x;
				}
			}
			const int32_t v = tinyaot_mbqm64(acc, p->multiplier[oc], p->shift[oc]);

			output[w.pix * d->out_c + oc] =
				(int16_t)tinyaot_clamp_i32(v, p->act_min, p->act_max);
		}
	}
}

/* A pixel's window clipped to the input: its first tap's input and weight, rows and columns. */
struct tinyaot_dwconv_f32_window {
	const float *in;
	const float *w;
	int32_t rows, cols;
};

static struct tinyaot_dwconv_f32_window tinyaot_dwconv_f32_clip(const struct tinyaot_conv_dims *d,
								const float *input,
								const float *filter, int32_t i,
								int32_t pixels, int32_t *pix)
{
	const struct tinyaot_conv_window w = tinyaot_conv_clip(d, i, pixels);
	const struct tinyaot_dwconv_f32_window win = {input + w.first * d->in_c,
						      filter + (w.ky * d->k_w + w.kx) * d->out_c,
						      w.rows, w.cols};

	*pix = w.pix;
	return win;
}

/* Output channel oc's sum over the window's taps in order, and its output. */
static float tinyaot_dwconv_f32_one(const struct tinyaot_dwconv_f32_params *p,
				    const struct tinyaot_dwconv_f32_window *win, int32_t oc,
				    const float *bias)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const float *in = win->in + oc / p->depth_multiplier, *w = win->w + oc;
	float acc = 0.0f;

	for (int32_t r = 0; r < win->rows; r++) {
		const float *x = in, *f = w;

		for (int32_t t = 0; t < win->cols; t++) {
			acc = tinyaot_mac_f32(acc, *x, *f);
			x += d->dil_w * d->in_c;
			f += d->out_c;
		}
		in += d->dil_h * d->in_w * d->in_c;
		w += d->k_w * d->out_c;
	}
	return tinyaot_out_f32(acc, bias, oc, p->act_min, p->act_max);
}

/*
 * Channels oc .. oc + 7 of one pixel: with a depth multiplier of 1 eight input channels, with
 * one that is a multiple of 8 one input channel for all eight.
 */
static void tinyaot_dwconv_f32_eight(const struct tinyaot_dwconv_f32_params *p,
				     const struct tinyaot_dwconv_f32_window *win, const float *bias,
				     int32_t oc, float *out)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t m = p->depth_multiplier;
	const float *row_in = win->in + oc / m, *row_w = win->w + oc;
	/*
	 * Read once: the stores below, and the multiply-adds' reading memory, could change the
	 * parameters as far as C knows.
	 */
	const float lo = p->act_min, hi = p->act_max;
	const int32_t in_c = d->in_c, out_c = d->out_c, rows = win->rows, cols = win->cols;
	const int32_t in_row = d->dil_h * d->in_w * in_c, w_row = d->k_w * out_c;
	const int32_t in_col = d->dil_w * in_c;
	float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};

	for (int32_t r = 0; r < rows; r++) {
		const float *x = row_in, *f = row_w;

		for (int32_t t = 0; t < cols; t++) {
			if (m == 1) {
				tinyaot_mla8_f32(acc, x, f);
			} else {
				tinyaot_mla8s_f32(acc, *x, f);
			}
			x += in_col;
			f += out_c;
		}
		row_in += in_row;
		row_w += w_row;
	}
	tinyaot_out4_f32(out + oc, acc, bias, oc, lo, hi);
	tinyaot_out4_f32(out + oc + 4, acc + 4, bias, oc + 4, lo, hi);
}

/*
 * TFLite Micro's sum per output (kernel rows and columns in order, taps outside the input
 * skipped), the window's bounds found once per pixel. With a depth multiplier of 1, eight
 * adjacent channels go together: their inputs and weights are adjacent at every tap.
 */
void tinyaot_dwconv_f32(const struct tinyaot_dwconv_f32_params *p, const float *input,
			const float *filter, const float *bias, float *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t pix;
		const struct tinyaot_dwconv_f32_window win =
			tinyaot_dwconv_f32_clip(d, input, filter, i, pixels, &pix);
		float *out = output + pix * d->out_c;

		if (p->depth_multiplier != 1 && p->depth_multiplier % 8 != 0) {
			for (int32_t j = 0; j < d->out_c; j++) {
				const int32_t oc = d->reverse ? d->out_c - 1 - j : j;

				out[oc] = tinyaot_dwconv_f32_one(p, &win, oc, bias);
			}
			continue;
		}
		for (int32_t j = 0; j < d->out_c;) {
			int32_t oc;
			const int32_t count = tinyaot_conv_group(d, 8, j, &oc);

			if (count == 8) {
				tinyaot_dwconv_f32_eight(p, &win, bias, oc, out);
			} else {
				out[oc] = tinyaot_dwconv_f32_one(p, &win, oc, bias);
			}
			j += count;
		}
	}
}
