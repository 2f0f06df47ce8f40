/* Reference L2_POOL_2D (TFLM's L2Pool): the float sum of squares over the part of the window
 * inside the input, in row order, divided by the count of those cells, its square root, then
 * the activation clamp. std::sqrt is replaced by Newton's method (no libm), well inside the
 * 1e-5 float tolerance.
 */
#include <string.h>

#include <tinyaot/l2_pool.h>

/* sqrt(x) for x >= 0 (a mean of squares): a guess from halving the exponent bits, then Newton
 * steps, each squaring the relative error (a few percent, 2e-3, 2e-6, then rounding).
 */
static float tinyaot_l2_pool_sqrt(float x)
{
	uint32_t bits;
	float scale = 1.0f;

	if (!(x > 0.0f) || x > 3.40282347e38f) {
		return x; /* zero, infinity, NaN */
	}
	if (x < 1.17549435e-38f) {
		/* subnormal: scale by 2^24 into the normal range and the root back by 2^-12 */
		x *= 16777216.0f;
		scale = 1.0f / 4096.0f;
	}
	memcpy(&bits, &x, sizeof(bits));
	bits = (bits >> 1) + 0x1fbb4000u;

	float y;

	memcpy(&y, &bits, sizeof(y));
	for (int i = 0; i < 4; i++) {
		y = 0.5f * (y + x / y);
	}
	return y * scale;
}

void tinyaot_l2_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input, float *output)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox, y0, y1, x0, x1;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const float *in_b = input + b * d->in_h * d->in_w * d->channels;

		tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
		const float count = (float)((y1 - y0) * (x1 - x0));

		for (int32_t j = 0; j < d->channels; j++) {
			const int32_t c = d->reverse ? d->channels - 1 - j : j;
			float sum = 0.0f;

			for (int32_t y = y0; y < y1; y++) {
				for (int32_t x = x0; x < x1; x++) {
					const float v = in_b[(y * d->in_w + x) * d->channels + c];

					sum += v * v;
				}
			}
			float r = tinyaot_l2_pool_sqrt(sum / count);

			r = r < p->act_min ? p->act_min : r;
			output[pix * d->channels + c] = r > p->act_max ? p->act_max : r;
		}
	}
}
