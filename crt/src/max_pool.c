/* Reference MAX_POOL_2D. */
#include <float.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/pooling.h>

void tinyaot_max_pool_s8(const struct tinyaot_pool_s8_params *p, const int8_t *input,
			 int8_t *output)
{
	const struct tinyaot_pool_dims *d = &p->d;

	for (int32_t b = 0; b < d->batches; b++) {
		const int8_t *in_b = input + b * d->in_h * d->in_w * d->channels;

		for (int32_t oy = 0; oy < d->out_h; oy++) {
			for (int32_t ox = 0; ox < d->out_w; ox++) {
				int32_t y0, y1, x0, x1;

				tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
				for (int32_t c = 0; c < d->channels; c++) {
					int32_t m = INT8_MIN;

					for (int32_t y = y0; y < y1; y++) {
						for (int32_t x = x0; x < x1; x++) {
							m = tinyaot_max_i32(
								m, in_b[(y * d->in_w + x) *
										d->channels +
									c]);
						}
					}
					*output++ = (int8_t)tinyaot_clamp_i32(m, p->act_min,
									      p->act_max);
				}
			}
		}
	}
}

void tinyaot_max_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input,
			  float *output)
{
	const struct tinyaot_pool_dims *d = &p->d;

	for (int32_t b = 0; b < d->batches; b++) {
		const float *in_b = input + b * d->in_h * d->in_w * d->channels;

		for (int32_t oy = 0; oy < d->out_h; oy++) {
			for (int32_t ox = 0; ox < d->out_w; ox++) {
				int32_t y0, y1, x0, x1;

				tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
				for (int32_t c = 0; c < d->channels; c++) {
					float m = -FLT_MAX;

					for (int32_t y = y0; y < y1; y++) {
						for (int32_t x = x0; x < x1; x++) {
							const float v = in_b[(y * d->in_w + x) *
										     d->channels +
									     c];

							m = v > m ? v : m;
						}
					}
					m = m < p->act_min ? p->act_min : m;
					*output++ = m > p->act_max ? p->act_max : m;
				}
			}
		}
	}
}
