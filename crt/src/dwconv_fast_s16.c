/* DEPTHWISE_CONV_2D int16x8 with int32 sums (tinyaot/dwconv_fast_s16.h). */
#include <tinyaot/dwconv_fast_s16.h>
#include <tinyaot/fixedpoint.h>

/* Channel oc's output from its sum. */
static inline int16_t tinyaot_dws16_out(const struct tinyaot_dwconv_fast_s16_params *p, int32_t acc,
					int32_t oc)
{
	return (int16_t)tinyaot_clamp_i32(tinyaot_mbqm64_pre(acc, p->multiplier[oc], p->shift[oc]),
					  p->act_min, p->act_max);
}

void tinyaot_dwconv_fast_s16(const struct tinyaot_dwconv_fast_s16_params *p, const int16_t *input,
			     const int8_t *filter, int16_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t in_c = d->in_c, out_c = d->out_c, mult = p->depth_multiplier;
	const int32_t row = d->dil_h * d->in_w * in_c, k_row = d->k_w * out_c;
	const int32_t col = d->dil_w * in_c;
	/* With a depth multiplier of 1, four adjacent channels read adjacent inputs and weights
	 * at every tap: each tap's step is shared by four sums in registers.
	 */
	const int32_t width = mult == 1 ? 4 : 1;

	for (int32_t i = 0; i < pixels; i++) {
		/* The window clipped to the input, walked by pointer steps. */
		const struct tinyaot_conv_window w = tinyaot_conv_clip(d, i, pixels);
		const int16_t *in = input + w.first * in_c;
		const int8_t *f = filter + w.ky * k_row + w.kx * out_c;
		int16_t *out = output + w.pix * out_c;

		for (int32_t j = 0; j < out_c;) {
			int32_t oc;
			const int32_t count = tinyaot_conv_group(d, width, j, &oc);
			const int16_t *x_row = in + oc / mult;
			const int8_t *f_row = f + oc;

			if (count == 4) {
				int32_t a0 = p->bias[oc], a1 = p->bias[oc + 1];
				int32_t a2 = p->bias[oc + 2], a3 = p->bias[oc + 3];

				for (int32_t r = 0; r < w.rows; r++, x_row += row, f_row += k_row) {
					const int16_t *x = x_row;
					const int8_t *fk = f_row;

					for (int32_t c = 0; c < w.cols;
					     c++, x += col, fk += out_c) {
						a0 += fk[0] * x[0];
						a1 += fk[1] * x[1];
						a2 += fk[2] * x[2];
						a3 += fk[3] * x[3];
					}
				}
				out[oc] = tinyaot_dws16_out(p, a0, oc);
				out[oc + 1] = tinyaot_dws16_out(p, a1, oc + 1);
				out[oc + 2] = tinyaot_dws16_out(p, a2, oc + 2);
				out[oc + 3] = tinyaot_dws16_out(p, a3, oc + 3);
			} else {
				int32_t acc = p->bias[oc];

				for (int32_t r = 0; r < w.rows; r++, x_row += row, f_row += k_row) {
					const int16_t *x = x_row;
					const int8_t *fk = f_row;

					for (int32_t c = 0; c < w.cols;
					     c++, x += col, fk += out_c) {
						acc += *fk * *x;
					}
				}
				out[oc] = tinyaot_dws16_out(p, acc, oc);
			}
			j += count;
		}
	}
}
