/* Reference TRANSPOSE_CONV. TFLM scatters each input pixel into a scratch the size of the
 * output, in input order (row, column, channel), then adds the bias and requantises. Each
 * output here gathers the inputs whose windows cover it in that same order, so int8 sums
 * and float roundings match the scatter's without an output-sized scratch.
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/transpose_conv.h>

/* The inputs that reach one output pixel: rows y0..y1, columns x0..x1 of image `batch`,
 * with filter tap (oy + pad_h - y * stride_h, ox + pad_w - x * stride_w). */
struct window {
	int32_t batch, oy, ox;
	int32_t y0, y1, x0, x1;
};

static int32_t tinyaot_first_covering(int32_t o, int32_t pad, int32_t k, int32_t stride)
{
	const int32_t lo = o + pad - k + 1;

	return lo <= 0 ? 0 : (lo + stride - 1) / stride;
}

static struct window tinyaot_pixel_window(const struct tinyaot_conv_dims *d, int32_t pix)
{
	struct window w;

	w.ox = pix % d->out_w;
	w.oy = (pix / d->out_w) % d->out_h;
	w.batch = pix / (d->out_w * d->out_h);
	w.y0 = tinyaot_first_covering(w.oy, d->pad_h, d->k_h, d->stride_h);
	w.y1 = tinyaot_min_i32((w.oy + d->pad_h) / d->stride_h, d->in_h - 1);
	w.x0 = tinyaot_first_covering(w.ox, d->pad_w, d->k_w, d->stride_w);
	w.x1 = tinyaot_min_i32((w.ox + d->pad_w) / d->stride_w, d->in_w - 1);
	return w;
}

/* Element offsets of input pixel (y, x) of the window's image and of output channel oc's
 * filter tap for it. */
static void tinyaot_transpose_tap(const struct tinyaot_conv_dims *d, const struct window *w,
				  int32_t oc, int32_t y, int32_t x, int32_t *in, int32_t *filter)
{
	const int32_t fy = w->oy + d->pad_h - y * d->stride_h;
	const int32_t fx = w->ox + d->pad_w - x * d->stride_w;

	*in = ((w->batch * d->in_h + y) * d->in_w + x) * d->in_c;
	*filter = ((oc * d->k_h + fy) * d->k_w + fx) * d->in_c;
}

void tinyaot_transpose_conv_s8(const struct tinyaot_conv_s8_params *p, const int8_t *input,
			       const int8_t *filter, const int32_t *bias, int8_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t pix = 0; pix < pixels; pix++) {
		const struct window w = tinyaot_pixel_window(d, pix);

		for (int32_t oc = 0; oc < d->out_c; oc++) {
			int32_t acc = 0;

			for (int32_t y = w.y0; y <= w.y1; y++) {
				for (int32_t x = w.x0; x <= w.x1; x++) {
					int32_t i, f;

					tinyaot_transpose_tap(d, &w, oc, y, x, &i, &f);
					for (int32_t ic = 0; ic < d->in_c; ic++) {
						acc += (input[i + ic] + p->input_offset) *
						       filter[f + ic];
					}
				}
			}
			if (bias != NULL) {
				acc += bias[oc];
			}
			acc = tinyaot_mbqm(acc, p->multiplier[oc], p->shift[oc]) + p->output_offset;
			*output++ = (int8_t)tinyaot_clamp_i32(acc, p->act_min, p->act_max);
		}
	}
}

/* int16x8: TFLM's scratch is int64 here, and integer sums do not depend on their order. */
void tinyaot_transpose_conv_s16(const struct tinyaot_conv_s16_params *p, const int16_t *input,
				const int8_t *filter, const int64_t *bias, int16_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t pix = 0; pix < pixels; pix++) {
		const struct window w = tinyaot_pixel_window(d, pix);

		for (int32_t oc = 0; oc < d->out_c; oc++) {
			int64_t acc = 0;

			for (int32_t y = w.y0; y <= w.y1; y++) {
				for (int32_t x = w.x0; x <= w.x1; x++) {
					int32_t i, f;

					tinyaot_transpose_tap(d, &w, oc, y, x, &i, &f);
					for (int32_t ic = 0; ic < d->in_c; ic++) {
						acc += input[i + ic] * filter[f + ic];
					}
				}
			}
			if (bias != NULL) {
				acc += bias[oc];
			}
			*output++ = tinyaot_conv_s16_out(p, acc, oc);
		}
	}
}

void tinyaot_transpose_conv_f32(const struct tinyaot_conv_f32_params *p, const float *input,
				const float *filter, const float *bias, float *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t pix = 0; pix < pixels; pix++) {
		const struct window w = tinyaot_pixel_window(d, pix);

		for (int32_t oc = 0; oc < d->out_c; oc++) {
			float acc = 0.0f;

			for (int32_t y = w.y0; y <= w.y1; y++) {
				for (int32_t x = w.x0; x <= w.x1; x++) {
					int32_t i, f;

					tinyaot_transpose_tap(d, &w, oc, y, x, &i, &f);
					for (int32_t ic = 0; ic < d->in_c; ic++) {
						acc += input[i + ic] * filter[f + ic];
					}
				}
			}
			if (bias != NULL) {
				acc += bias[oc];
			}
			acc = acc < p->act_min ? p->act_min : acc;
			*output++ = acc > p->act_max ? p->act_max : acc;
		}
	}
}
