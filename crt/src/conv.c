/* Reference CONV_2D, in the accumulation order of TFLite's reference kernels. Output
 * elements are produced pixel by pixel, channels ascending (or exactly the reverse), the
 * order the planner's overlap gaps assume.
 */
#include <tinyaot/conv.h>
#include <tinyaot/fixedpoint.h>

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
				const int32_t y = y0 + ky;

				if (y < 0 || y >= d->in_h) {
					continue;
				}
				for (int32_t kx = 0; kx < d->k_w; kx++) {
					const int32_t x = x0 + kx;

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

void tinyaot_conv_s16(const struct tinyaot_conv_s16_params *p, const int16_t *input,
		      const int8_t *filter, const int64_t *bias, int16_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox;
		const int32_t pix = tinyaot_conv_pixel(d, i, pixels, &b, &oy, &ox);
		const int16_t *in_b = input + b * d->in_h * d->in_w * d->in_c;
		const int32_t y0 = oy * d->stride_h - d->pad_h;
		const int32_t x0 = ox * d->stride_w - d->pad_w;

		for (int32_t j = 0; j < d->out_c; j++) {
			const int32_t oc = d->reverse ? d->out_c - 1 - j : j;
			const int8_t *f = filter + oc * d->k_h * d->k_w * d->in_c;
			int64_t acc = 0;

			for (int32_t ky = 0; ky < d->k_h; ky++) {
				const int32_t y = y0 + ky;

				if (y < 0 || y >= d->in_h) {
					continue;
				}
				for (int32_t kx = 0; kx < d->k_w; kx++) {
					const int32_t x = x0 + kx;

					if (x < 0 || x >= d->in_w) {
						continue;
					}
					const int16_t *in = in_b + (y * d->in_w + x) * d->in_c;
					const int8_t *fk = f + (ky * d->k_w + kx) * d->in_c;

					for (int32_t ic = 0; ic < d->in_c; ic++) {
						acc += fk[ic] * in[ic];
					}
				}
			}
			if (bias != NULL) {
				acc += bias[oc];
			}
			output[pix * d->out_c + oc] = tinyaot_conv_s16_out(p, acc, oc);
		}
	}
}

void tinyaot_conv_f32(const struct tinyaot_conv_f32_params *p, const float *input,
		      const float *filter, const float *bias, float *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox;
		const int32_t pix = tinyaot_conv_pixel(d, i, pixels, &b, &oy, &ox);
		const float *in_b = input + b * d->in_h * d->in_w * d->in_c;
		const int32_t y0 = oy * d->stride_h - d->pad_h;
		const int32_t x0 = ox * d->stride_w - d->pad_w;

		for (int32_t j = 0; j < d->out_c; j++) {
			const int32_t oc = d->reverse ? d->out_c - 1 - j : j;
			const float *f = filter + oc * d->k_h * d->k_w * d->in_c;
			float acc = 0.0f;

			for (int32_t ky = 0; ky < d->k_h; ky++) {
				const int32_t y = y0 + ky;

				if (y < 0 || y >= d->in_h) {
					continue;
				}
				for (int32_t kx = 0; kx < d->k_w; kx++) {
					const int32_t x = x0 + kx;

					if (x < 0 || x >= d->in_w) {
						continue;
					}
					const float *in = in_b + (y * d->in_w + x) * d->in_c;
					const float *fk = f + (ky * d->k_w + kx) * d->in_c;

					for (int32_t ic = 0; ic < d->in_c; ic++) {
						acc += in[ic] * fk[ic];
					}
				}
			}
			if (bias != NULL) {
				acc += bias[oc];
			}
			acc = acc < p->act_min ? p->act_min : acc;
			output[pix * d->out_c + oc] = acc > p->act_max ? p->act_max : acc;
		}
	}
}
