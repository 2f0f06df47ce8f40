/* Hybrid float kernels: float32 activations, int8 weights. LiteRT quantises the input to
 * int8 per batch and sums int8 products in int32; these dequantise instead, converting each
 * weight to float as it is read and scaling each output's sum once by its weight scale.
 * That keeps the weights int8 in flash and the arena as the float model's, and computes the
 * float model with the weights rounded (no input rounding), so results differ from
 * LiteRT's by its input quantisation error (README, "Hybrid float").
 */
#include <tinyaot/hybrid.h>

static float tinyaot_hybrid_clamp(float v, float lo, float hi)
{
	v = v < lo ? lo : v;
	return v > hi ? hi : v;
}

void tinyaot_fc_hybrid(const struct tinyaot_fc_hybrid_params *p, const float *input,
		       const int8_t *filter, const float *bias, float *output)
{
	for (int32_t b = 0; b < p->batches; b++) {
		const float *in = input + b * p->depth;

		for (int32_t u = 0; u < p->units; u++) {
			const int8_t *f = filter + u * p->depth;
			float acc = 0.0f;

			for (int32_t i = 0; i < p->depth; i++) {
				acc += in[i] * (float)f[i];
			}
			acc *= p->scale[u];
			if (bias != NULL) {
				acc += bias[u];
			}
			*output++ = tinyaot_hybrid_clamp(acc, p->act_min, p->act_max);
		}
	}
}

void tinyaot_conv_hybrid(const struct tinyaot_conv_hybrid_params *p, const float *input,
			 const int8_t *filter, const float *bias, float *output)
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
			const int8_t *f = filter + oc * d->k_h * d->k_w * d->in_c;
			float acc = 0.0f;

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
					const float *in = in_b + (y * d->in_w + x) * d->in_c;
					const int8_t *fk = f + (ky * d->k_w + kx) * d->in_c;

					for (int32_t ic = 0; ic < d->in_c; ic++) {
						acc += in[ic] * (float)fk[ic];
					}
				}
			}
			acc *= p->scale[oc];
			if (bias != NULL) {
				acc += bias[oc];
			}
			output[pix * d->out_c + oc] =
				tinyaot_hybrid_clamp(acc, p->act_min, p->act_max);
		}
	}
}

void tinyaot_dwconv_hybrid(const struct tinyaot_dwconv_hybrid_params *p, const float *input,
			   const int8_t *filter, const float *bias, float *output)
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
			const int32_t ic = oc / p->depth_multiplier;
			float acc = 0.0f;

			for (int32_t ky = 0; ky < d->k_h; ky++) {
				const int32_t y = y0 + ky * d->dil_h;

				for (int32_t kx = 0; kx < d->k_w && y >= 0 && y < d->in_h; kx++) {
					const int32_t x = x0 + kx * d->dil_w;

					if (x >= 0 && x < d->in_w) {
						acc += in_b[(y * d->in_w + x) * d->in_c + ic] *
						       (float)filter[(ky * d->k_w + kx) * d->out_c +
								     oc];
					}
				}
			}
			acc *= p->scale[oc];
			if (bias != NULL) {
				acc += bias[oc];
			}
			output[pix * d->out_c + oc] =
				tinyaot_hybrid_clamp(acc, p->act_min, p->act_max);
		}
	}
}

void tinyaot_batch_matmul_hybrid(const struct tinyaot_batch_matmul_hybrid_params *p,
				 const float *lhs, const int8_t *rhs, float *output)
{
	const struct tinyaot_batch_matmul_dims *d = &p->d;
	const int32_t n = tinyaot_batch_matmul_outputs(d);

	for (int32_t o = 0; o < n; o++) {
		int32_t a, b;
		float acc = 0.0f;

		tinyaot_batch_matmul_operands(d, o, &a, &b);
		for (int32_t k = 0; k < d->depth; k++) {
			acc += lhs[a + k * d->lhs_depth] * (float)rhs[b + k * d->rhs_depth];
		}
		output[o] = acc * p->scale;
	}
}
