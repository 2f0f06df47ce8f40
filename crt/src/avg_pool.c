/* Reference AVERAGE_POOL_2D: the divisor counts only window cells inside the input. */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/pooling.h>

void tinyaot_avg_pool_s8(const struct tinyaot_pool_s8_params *p, const int8_t *input,
			 int8_t *output)
{
	const struct tinyaot_pool_dims *d = &p->d;

	for (int32_t b = 0; b < d->batches; b++) {
		const int8_t *in_b = input + b * d->in_h * d->in_w * d->channels;

		for (int32_t oy = 0; oy < d->out_h; oy++) {
			for (int32_t ox = 0; ox < d->out_w; ox++) {
				int32_t y0, y1, x0, x1;

				tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
				const int32_t count = (y1 - y0) * (x1 - x0);

				for (int32_t c = 0; c < d->channels; c++) {
					int32_t acc = 0;

					for (int32_t y = y0; y < y1; y++) {
						for (int32_t x = x0; x < x1; x++) {
							acc += in_b[(y * d->in_w + x) *
									    d->channels +
								    c];
						}
					}
					/* Round half away from zero, as TFLite does. */
					acc = acc > 0 ? (acc + count / 2) / count
						      : (acc - count / 2) / count;
					*output++ = (int8_t)tinyaot_clamp_i32(acc, p->act_min,
									      p->act_max);
				}
			}
		}
	}
}

void tinyaot_avg_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input,
			  float *output)
{
	const struct tinyaot_pool_dims *d = &p->d;

	for (int32_t b = 0; b < d->batches; b++) {
		const float *in_b = input + b * d->in_h * d->in_w * d->channels;

		for (int32_t oy = 0; oy < d->out_h; oy++) {
			for (int32_t ox = 0; ox < d->out_w; ox++) {
				int32_t y0, y1, x0, x1;

				tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
				const float count = (float)((y1 - y0) * (x1 - x0));

				for (int32_t c = 0; c < d->channels; c++) {
					float acc = 0.0f;

					for (int32_t y = y0; y < y1; y++) {
						for (int32_t x = x0; x < x1; x++) {
							acc += in_b[(y * d->in_w + x) *
									    d->channels +
								    c];
						}
					}
					acc = acc / count;
					acc = acc < p->act_min ? p->act_min : acc;
					*output++ = acc > p->act_max ? p->act_max : acc;
				}
			}
		}
	}
}
