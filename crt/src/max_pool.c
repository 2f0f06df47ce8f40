/* Reference MAX_POOL_2D. Element order as in the convolutions. */
#include <float.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/pooling.h>

/* int8 and int16 alike; wide is a constant in each caller. */
static inline void tinyaot_max_pool_q(const struct tinyaot_pool_s8_params *p, const void *input,
				      void *output, const int32_t wide)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox, y0, y1, x0, x1;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const int32_t in_b = b * d->in_h * d->in_w * d->channels;

		tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
		for (int32_t j = 0; j < d->channels; j++) {
			const int32_t c = d->reverse ? d->channels - 1 - j : j;
			int32_t m = wide ? INT16_MIN : INT8_MIN;

			for (int32_t y = y0; y < y1; y++) {
				for (int32_t x = x0; x < x1; x++) {
					const int32_t q =
						in_b + (y * d->in_w + x) * d->channels + c;

					m = tinyaot_max_i32(m, wide ? ((const int16_t *)input)[q]
								    : ((const int8_t *)input)[q]);
				}
			}
			const int32_t o = pix * d->channels + c;

			m = tinyaot_clamp_i32(m, p->act_min, p->act_max);
			if (wide) {
				((int16_t *)output)[o] = (int16_t)m;
			} else {
				((int8_t *)output)[o] = (int8_t)m;
			}
		}
	}
}

void tinyaot_max_pool_s8(const struct tinyaot_pool_s8_params *p, const int8_t *input,
			 int8_t *output)
{
	tinyaot_max_pool_q(p, input, output, 0);
}

void tinyaot_max_pool_s16(const struct tinyaot_pool_s8_params *p, const int16_t *input,
			  int16_t *output)
{
	tinyaot_max_pool_q(p, input, output, 1);
}

void tinyaot_max_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input,
			  float *output)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox, y0, y1, x0, x1;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const float *in_b = input + b * d->in_h * d->in_w * d->channels;

		tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
		for (int32_t j = 0; j < d->channels; j++) {
			const int32_t c = d->reverse ? d->channels - 1 - j : j;
			float m = -FLT_MAX;

			for (int32_t y = y0; y < y1; y++) {
				for (int32_t x = x0; x < x1; x++) {
					const float v = in_b[(y * d->in_w + x) * d->channels + c];

					m = v > m ? v : m;
				}
			}
			m = m < p->act_min ? p->act_min : m;
			output[pix * d->channels + c] = m > p->act_max ? p->act_max : m;
		}
	}
}
