/* Reference RESIZE_BILINEAR. int8 is TFLM's ResizeBilinearInteger: four int64 products of
 * an input and two 10-bit weights, summed, then divided by 2^20 rounding half away from
 * zero. float32 keeps TFLM's order of products and sums.
 */
#include <tinyaot/resize_bilinear.h>

#define ONE 1024

/* (v + round) / 2^20 in C's truncating division, without a 64-bit division routine. */
static int32_t round_shift20(int64_t v)
{
	const int64_t half = (int64_t)1 << 19;

	return v > 0 ? (int32_t)((v + half) >> 20) : -(int32_t)((half - v) >> 20);
}

void tinyaot_resize_bilinear_s8(const struct tinyaot_resize_bilinear_s8_params *p,
				const int8_t *input, int8_t *output)
{
	for (int32_t b = 0; b < p->batches; b++) {
		for (int32_t y = 0; y < p->out_h; y++) {
			const int32_t *ry = &p->rows[3 * y];
			const int64_t wy1 = ry[2], wy0 = ONE - ry[2];

			for (int32_t x = 0; x < p->out_w; x++) {
				const int32_t *cx = &p->cols[3 * x];
				const int64_t wx1 = cx[2], wx0 = ONE - cx[2];
				const int8_t *i00 = input + ry[0] + cx[0];
				const int8_t *i10 = input + ry[1] + cx[0];
				const int8_t *i01 = input + ry[0] + cx[1];
				const int8_t *i11 = input + ry[1] + cx[1];

				for (int32_t c = 0; c < p->depth; c++) {
					const int64_t v = i00[c] * wy0 * wx0 + i10[c] * wy1 * wx0 +
							  i01[c] * wy0 * wx1 + i11[c] * wy1 * wx1;

					*output++ = (int8_t)round_shift20(v);
				}
			}
		}
		input += p->image;
	}
}

void tinyaot_resize_bilinear_f32(const struct tinyaot_resize_bilinear_f32_params *p,
				 const float *input, float *output)
{
	for (int32_t b = 0; b < p->batches; b++) {
		for (int32_t y = 0; y < p->out_h; y++) {
			const int32_t *ry = &p->rows[2 * y];
			const float fy = p->fy[y];

			for (int32_t x = 0; x < p->out_w; x++) {
				const int32_t *cx = &p->cols[2 * x];
				const float fx = p->fx[x];
				const float *i00 = input + ry[0] + cx[0];
				const float *i10 = input + ry[1] + cx[0];
				const float *i01 = input + ry[0] + cx[1];
				const float *i11 = input + ry[1] + cx[1];

				for (int32_t c = 0; c < p->depth; c++) {
					*output++ = i00[c] * (1 - fy) * (1 - fx) +
						    i10[c] * fy * (1 - fx) +
						    i01[c] * (1 - fy) * fx + i11[c] * fy * fx;
				}
			}
		}
		input += p->image;
	}
}
