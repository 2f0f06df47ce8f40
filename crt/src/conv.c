/* Reference CONV_2D, in the accumulation order of TFLite's reference kernels. Output
 * elements are produced pixel by pixel, channels ascending (or exactly the reverse), the
 * order the planner's overlap gaps assume.
 */
#include <tinyaot/conv.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/mac_f32.h>

void tinyaot_conv_s8(const struct tinyaot_conv_s8_params *p, const int8_t *input,
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
			const int8_t *f = filter + oc * d->k_h * d->k_w * d->in_c;
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
					const int8_t *in = in_b + (y * d->in_w + x) * d->in_c;
					const int8_t *fk = f + (ky * d->k_w + kx) * d->in_c;

					for (int32_t ic = 0; ic < d->in_c; ic++) {
						acc += fk[ic] * (in[ic] + p->input_offset);
					}
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

/* The int16x8 sum of a run of weights and inputs: SMLAL adds each product into int64, as
 * TFLite Micro's int64 accumulator does.
 */
static inline int64_t tinyaot_dot_s16(int64_t acc, const int8_t *w, const int16_t *x, int32_t n)
{
	for (int32_t k = 0; k < n; k++) {
		acc += (int64_t)w[k] * x[k];
	}
	return acc;
}

/* Four output channels' sums (weights `stride` apart) over one run of inputs, each input read
 * once for the four.
 */
static inline void tinyaot_dot4_s16(int64_t *acc, const int8_t *w, int32_t stride, const int16_t *x,
				    int32_t n)
{
	const int8_t *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
	int64_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];

	for (int32_t k = 0; k < n; k++) {
		const int32_t v = x[k];

		a0 += (int64_t)w[k] * v;
		a1 += (int64_t)w1[k] * v;
		a2 += (int64_t)w2[k] * v;
		a3 += (int64_t)w3[k] * v;
	}
	acc[0] = a0;
	acc[1] = a1;
	acc[2] = a2;
	acc[3] = a3;
}

void tinyaot_conv_s16(const struct tinyaot_conv_s16_params *p, const int16_t *input,
		      const int8_t *filter, const int64_t *bias, int16_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t row = d->dil_h * d->in_w * d->in_c, k_row = d->k_w * d->in_c;
	const int32_t run_step = d->dil_w * d->in_c;

	for (int32_t i = 0; i < pixels; i++) {
		/* The window clipped to the input: per kernel row its runs of inputs and weights
		 * (tinyaot_conv_row_runs).
		 */
		const struct tinyaot_conv_window w = tinyaot_conv_clip(d, i, pixels);
		const int16_t *in = input + w.first * d->in_c;
		int32_t n;
		const int32_t runs = tinyaot_conv_row_runs(d, &w, &n);

		/* Four output channels at a time where they group (tinyaot_conv_group), each
		 * input read once for the four.
		 */
		for (int32_t j = 0; j < d->out_c;) {
			int32_t oc;
			const int32_t count = tinyaot_conv_group(d, 4, j, &oc);
			const int8_t *f =
				filter + oc * d->k_h * k_row + w.ky * k_row + w.kx * d->in_c;
			int64_t acc[4];

			for (int32_t g = 0; g < count; g++) {
				acc[g] = bias != NULL ? bias[oc + g] : 0;
			}
			for (int32_t r = 0; r < w.rows; r++) {
				for (int32_t t = 0; t < runs; t++) {
					const int8_t *fr = f + r * k_row + t * d->in_c;
					const int16_t *x = in + r * row + t * run_step;

					if (count == 4) {
						tinyaot_dot4_s16(acc, fr, d->k_h * k_row, x, n);
					} else {
						acc[0] = tinyaot_dot_s16(acc[0], fr, x, n);
					}
				}
			}
			for (int32_t g = 0; g < count; g++) {
				output[w.pix * d->out_c + oc + g] =
					tinyaot_conv_s16_out(p, acc[g], oc + g);
			}
			j += count;
		}
	}
}

/*
 * A pixel's window clipped to the input: the kernel rows and the run of kernel columns it
 * covers, each row's input channels one contiguous run of n floats in the input and in each
 * output channel's weights, or with dilated columns `runs` runs of in_c
 * (tinyaot_conv_row_runs).
 */
struct tinyaot_conv_f32_window {
	const float *in; /* the first input of the first row */
	int32_t f;       /* the offset of its weight in an output channel's weights */
	int32_t rows, runs, n;
};

static struct tinyaot_conv_f32_window tinyaot_conv_f32_clip(const struct tinyaot_conv_dims *d,
							    const float *input, int32_t i,
							    int32_t pixels, int32_t *pix)
{
	const struct tinyaot_conv_window w = tinyaot_conv_clip(d, i, pixels);
	struct tinyaot_conv_f32_window win = {input + w.first * d->in_c,
					      (w.ky * d->k_w + w.kx) * d->in_c, w.rows, 0, 0};

	win.runs = tinyaot_conv_row_runs(d, &w, &win.n);
	*pix = w.pix;
	return win;
}

/*
 * Eight sums: output channels oc .. oc + 7 of one pixel, or with a second pixel's window at in2,
 * channels oc .. oc + 3 of both, the second's in acc[4..7].
 */
static void tinyaot_conv_f32_eight(const struct tinyaot_conv_f32_params *p,
				   const struct tinyaot_conv_f32_window *win, const float *in2,
				   const float *filter, const float *bias, int32_t oc, float *out,
				   float *out2)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t per_oc = d->k_h * d->k_w * d->in_c;
	const float *in = win->in;
	const float *f = filter + oc * per_oc + win->f;
	/* Read once: the stores below could alias the parameters as far as C knows. */
	const float lo = p->act_min, hi = p->act_max;
	/* Where acc[4..7] go, as channels oc4 + 4 .. oc4 + 7 of `upper`. */
	const int32_t oc4 = in2 != NULL ? oc - 4 : oc;
	float *upper = (in2 != NULL ? out2 : out) + oc4;
	float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};

	const int32_t row = d->dil_h * d->in_w * d->in_c, run_step = d->dil_w * d->in_c;

	for (int32_t r = 0; r < win->rows; r++) {
		for (int32_t t = 0; t < win->runs; t++) {
			const float *fr = f + t * d->in_c;

			if (in2 != NULL) {
				tinyaot_dot4x2_f32(acc, in + t * run_step, in2 + t * run_step, fr,
						   per_oc, win->n);
			} else {
				tinyaot_dot8_f32(acc, in + t * run_step, fr, per_oc, win->n);
			}
		}
		in += row;
		in2 = in2 != NULL ? in2 + row : NULL;
		f += d->k_w * d->in_c;
	}
	tinyaot_out4_f32(out + oc, acc, bias, oc, lo, hi);
	tinyaot_out4_f32(upper + 4, acc + 4, bias, oc4 + 4, lo, hi);
}

/* Output channel oc of one pixel. */
static void tinyaot_conv_f32_one(const struct tinyaot_conv_f32_params *p,
				 const struct tinyaot_conv_f32_window *win, const float *filter,
				 const float *bias, int32_t oc, float *out)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const float *in = win->in;
	const float *f = filter + oc * d->k_h * d->k_w * d->in_c + win->f;
	float acc = 0.0f;

	for (int32_t r = 0; r < win->rows; r++) {
		for (int32_t t = 0; t < win->runs; t++) {
			acc = tinyaot_dot_f32(acc, in + t * d->dil_w * d->in_c, f + t * d->in_c,
					      win->n);
		}
		in += d->dil_h * d->in_w * d->in_c;
		f += d->k_w * d->in_c;
	}
	out[oc] = tinyaot_out_f32(acc, bias, oc, p->act_min, p->act_max);
}

/*
 * TFLite Micro's sum per output (kernel rows, columns, input channels in order, taps outside
 * the input skipped), with the window's bounds found once per pixel: a row's columns and
 * channels are then one run, and four output channels share each input load. Two pixels whose
 * windows are clipped alike go together, sharing each weight load, unless the output overlaps
 * the input: the planner's gaps assume one pixel after the other there.
 */
void tinyaot_conv_f32(const struct tinyaot_conv_f32_params *p, const float *input,
		      const float *filter, const float *bias, float *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const float *in_end = input + d->batches * d->in_h * d->in_w * d->in_c;
	const int32_t pairs = output >= in_end || output + pixels * d->out_c <= input;

	for (int32_t i = 0; i < pixels;) {
		int32_t pix, pix2 = 0;
		const struct tinyaot_conv_f32_window win =
			tinyaot_conv_f32_clip(d, input, i, pixels, &pix);
		struct tinyaot_conv_f32_window win2 = win;
		float *out2 = NULL;

		if (pairs && i + 1 < pixels) {
			win2 = tinyaot_conv_f32_clip(d, input, i + 1, pixels, &pix2);
			if (win2.rows == win.rows && win2.runs == win.runs && win2.n == win.n &&
			    win2.f == win.f) {
				out2 = output + pix2 * d->out_c;
			}
		}
		float *out = output + pix * d->out_c;

		/* Alone, a pixel takes eight channels per input load; a pair four per weight load.
		 */
		const int32_t width = out2 != NULL ? 4 : 8;

		for (int32_t j = 0; j < d->out_c;) {
			int32_t oc;
			const int32_t count = tinyaot_conv_group(d, width, j, &oc);

			if (count == 1) {
				tinyaot_conv_f32_one(p, &win, filter, bias, oc, out);
				if (out2 != NULL) {
					tinyaot_conv_f32_one(p, &win2, filter, bias, oc, out2);
				}
			} else {
				tinyaot_conv_f32_eight(p, &win, out2 != NULL ? win2.in : NULL,
						       filter, bias, oc, out, out2);
			}
			j += count;
		}
		i += out2 != NULL ? 2 : 1;
	}
}
