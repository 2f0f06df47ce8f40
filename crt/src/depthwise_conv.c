/* Reference DEPTHWISE_CONV_2D, in the accumulation order of TFLite's reference kernels. */
#include <tinyaot/depthwise_conv.h>
#include <tinyaot/fixedpoint.h>

void tinyaot_dwconv_s8(const struct tinyaot_dwconv_s8_params *p, const int8_t *input,
		       const int8_t *filter, const int32_t *bias, int8_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;

	for (int32_t b = 0; b < d->batches; b++) {
		const int8_t *in_b = input + b * d->in_h * d->in_w * d->in_c;

		for (int32_t oy = 0; oy < d->out_h; oy++) {
			const int32_t y0 = oy * d->stride_h - d->pad_h;

			for (int32_t ox = 0; ox < d->out_w; ox++) {
				const int32_t x0 = ox * d->stride_w - d->pad_w;

				for (int32_t oc = 0; oc < d->out_c; oc++) {
					const int32_t ic = oc / p->depth_multiplier;
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
							const int32_t v =
								in_b[(y * d->in_w + x) * d->in_c +
								     ic];
							const int32_t w = filter[(ky * d->k_w +
										  kx) * d->out_c +
										 oc];

							acc += w * (v + p->input_offset);
						}
					}
					if (bias != NULL) {
						acc += bias[oc];
					}
					acc = tinyaot_mbqm(acc, p->multiplier[oc], p->shift[oc]);
					acc = tinyaot_clamp_i32(acc + p->output_offset, p->act_min,
								p->act_max);
					*output++ = (int8_t)acc;
				}
			}
		}
	}
}

void tinyaot_dwconv_f32(const struct tinyaot_dwconv_f32_params *p, const float *input,
			const float *filter, const float *bias, float *output)
{
	const struct tinyaot_conv_dims *d = &p->d;

	for (int32_t b = 0; b < d->batches; b++) {
		const float *in_b = input + b * d->in_h * d->in_w * d->in_c;

		for (int32_t oy = 0; oy < d->out_h; oy++) {
			const int32_t y0 = oy * d->stride_h - d->pad_h;

			for (int32_t ox = 0; ox < d->out_w; ox++) {
				const int32_t x0 = ox * d->stride_w - d->pad_w;

				for (int32_t oc = 0; oc < d->out_c; oc++) {
					const int32_t ic = oc / p->depth_multiplier;
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
							acc += in_b[(y * d->in_w + x) * d->in_c +
								    ic] *
							       filter[(ky * d->k_w + kx) *
									      d->out_c +
								      oc];
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
	}
}
