/* Reference AVERAGE_POOL_2D: the divisor counts only window cells inside the input.
 * Element order as in the convolutions (pixel by pixel, or exactly the reverse).
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>
#include <tinyaot/pooling.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>
#endif

/* Round half away from zero, as TFLite does. */
static inline int32_t tinyaot_avg_round(int32_t acc, int32_t count)
{
	return acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
}

/* int8 and int16 alike (TFLite's two integer AveragePool are the same steps); wide is a
 * constant in each caller, so each gets plain loads and stores of its type.
 */
static inline void tinyaot_avg_pool_q(const struct tinyaot_pool_s8_params *p, const void *input,
				      void *output, const int32_t wide)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox, y0, y1, x0, x1;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const int32_t in_b = b * d->in_h * d->in_w * d->channels;

		tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
		const int32_t count = (y1 - y0) * (x1 - x0);

		/* Four channels at a time when they divide evenly: the window is walked once per
		 * four outputs, which are written after all four are read (no earlier than one at
		 * a time would, so the overlap gaps hold).
		 */
		const int32_t step = d->channels % 4 == 0 ? 4 : 1;

		for (int32_t j = 0; j < d->channels; j += step) {
			const int32_t c = d->reverse ? d->channels - step - j : j;
			int32_t acc[4];

			/* One at a time: an initialiser list becomes a call to memset at -Os. */
			for (int32_t k = 0; k < 4; k++) {
				acc[k] = 0;
			}

			for (int32_t y = y0; y < y1; y++) {
				int32_t q = in_b + (y * d->in_w + x0) * d->channels + c;

				for (int32_t x = x0; x < x1; x++, q += d->channels) {
					for (int32_t k = 0; k < step; k++) {
						acc[k] += wide ? ((const int16_t *)input)[q + k]
							       : ((const int8_t *)input)[q + k];
					}
				}
			}
			for (int32_t k = 0; k < step; k++) {
				const int32_t v = tinyaot_avg_round(acc[k], count);
				const int32_t o = pix * d->channels + c + k;
				const int32_t r = tinyaot_clamp_i32(v, p->act_min, p->act_max);

				if (wide) {
					((int16_t *)output)[o] = (int16_t)r;
				} else {
					((int8_t *)output)[o] = (int8_t)r;
				}
			}
		}
	}
}

#if TINYAOT_MVE_KERNELS
/*
 * tinyaot_avg_round of four sums at once, for a window of count cells whose reciprocal is
 * recip = ceil(2^32 / count): Helium has no integer division. With n = |acc| + count / 2 the
 * quotient is floor(n / count) with acc's sign, and n * recip / 2^32 exceeds n / count by less
 * than n / 2^32, which stays under 1 / count (the gap from n / count to the next integer) while
 * n * count < 2^32: int8 sums give n <= 128.5 * count, so every count up to
 * TINYAOT_AVG_RECIP_MAX.
 */
#define TINYAOT_AVG_RECIP_MAX 4096

static inline int32x4_t tinyaot_avg_round4(int32x4_t acc, int32_t count, uint32_t recip)
{
	const uint32x4_t n = vreinterpretq_u32_s32(vaddq_n_s32(vabsq_s32(acc), count / 2));
	const int32x4_t q = vreinterpretq_s32_u32(vmulhq_u32(n, vdupq_n_u32(recip)));
	const int32x4_t sign = vshrq_n_s32(acc, 31);

	return vsubq_s32(veorq_s32(q, sign), sign);
}

/*
 * int8 with Helium: per output pixel, 16 channels at a time, each window cell four widening
 * VLDRB (the last chunk's lanes past the channels predicated off, so nothing past them is read)
 * and four VADD into int32 lanes; then each channel's rounded division, four lanes at a time by
 * the window's reciprocal (one cell: the sum itself; over TINYAOT_AVG_RECIP_MAX cells the
 * scalar division). Each read comes no later and each write no earlier than in the portable
 * loop's order (the chunk's outputs are written after all its sums), so the planner's overlap
 * gaps hold.
 */
static void tinyaot_avg_pool_s8_mve(const struct tinyaot_pool_s8_params *p, const int8_t *input,
				    int8_t *output)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t chunks = (d->channels + 15) / 16;
	const int32x4_t lo = vdupq_n_s32(p->act_min);
	const int32x4_t hi = vdupq_n_s32(p->act_max);
	/* The reciprocal of the last window's count: it changes only where the padding clips. */
	int32_t recip_count = 0;
	uint32_t recip = 0;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox, y0, y1, x0, x1;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const int8_t *in_b = input + b * d->in_h * d->in_w * d->channels;

		tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
		const int32_t count = (y1 - y0) * (x1 - x0);
		const int32_t vector = count > 1 && count <= TINYAOT_AVG_RECIP_MAX;

		if (vector && count != recip_count) {
			recip_count = count;
			recip = (uint32_t)((((uint64_t)1 << 32) + (uint64_t)count - 1) /
					   (uint64_t)count);
		}
		for (int32_t t = 0; t < chunks; t++) {
			const int32_t c = 16 * (d->reverse ? chunks - 1 - t : t);
			const int32_t n = d->channels - c < 16 ? d->channels - c : 16;
			int8_t *const out = output + pix * d->channels + c;
			mve_pred16_t live[4];
			int32x4_t s[4];

			for (int32_t k = 0; k < 4; k++) {
				live[k] = vctp32q((uint32_t)(n > 4 * k ? n - 4 * k : 0));
				s[k] = vdupq_n_s32(0);
			}
			for (int32_t y = y0; y < y1; y++) {
				const int8_t *q = in_b + (y * d->in_w + x0) * d->channels + c;

				for (int32_t x = x0; x < x1; x++, q += d->channels) {
					for (int32_t k = 0; k < 4; k++) {
						s[k] = vaddq_s32(s[k],
								 vldrbq_z_s32(q + 4 * k, live[k]));
					}
				}
			}
			if (vector || count == 1) {
				for (int32_t k = 0; k < 4; k++) {
					const int32x4_t v =
						vector ? tinyaot_avg_round4(s[k], count, recip)
						       : s[k];

					vstrbq_p_s32(out + 4 * k, vmaxq_s32(vminq_s32(v, hi), lo),
						     live[k]);
				}
				continue;
			}
			int32_t sums[16];

			for (int32_t k = 0; k < 4; k++) {
				vst1q_s32(&sums[4 * k], s[k]);
			}
			for (int32_t k = 0; k < n; k++) {
				const int32_t v = tinyaot_avg_round(sums[k], count);

				out[k] = (int8_t)tinyaot_clamp_i32(v, p->act_min, p->act_max);
			}
		}
	}
}
#else
/*
 * int8 over channels a multiple of 4: four sums in registers, the window walked by pointer
 * steps (the general loop keeps its sums in an array on the stack and indexes every cell). The
 * four outputs are written after all four sums, as in the general loop.
 */
static void tinyaot_avg_pool_s8_c4(const struct tinyaot_pool_s8_params *p, const int8_t *input,
				   int8_t *output)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t row = d->in_w * d->channels;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const struct tinyaot_pool_extent e = tinyaot_pool_extent(d, b, oy, ox, d->channels);
		const int8_t *const first = input + e.first;

		for (int32_t j = 0; j < d->channels; j += 4) {
			const int32_t c = d->reverse ? d->channels - 4 - j : j;
			int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
			int8_t *const out = output + pix * d->channels + c;

			for (const int8_t *r = first + c; r != first + c + e.height; r += row) {
				for (const int8_t *q = r; q != r + e.width; q += d->channels) {
					s0 += q[0];
					s1 += q[1];
					s2 += q[2];
					s3 += q[3];
				}
			}
			out[0] = (int8_t)tinyaot_clamp_i32(tinyaot_avg_round(s0, e.count),
							   p->act_min, p->act_max);
			out[1] = (int8_t)tinyaot_clamp_i32(tinyaot_avg_round(s1, e.count),
							   p->act_min, p->act_max);
			out[2] = (int8_t)tinyaot_clamp_i32(tinyaot_avg_round(s2, e.count),
							   p->act_min, p->act_max);
			out[3] = (int8_t)tinyaot_clamp_i32(tinyaot_avg_round(s3, e.count),
							   p->act_min, p->act_max);
		}
	}
}
#endif

void tinyaot_avg_pool_s8(const struct tinyaot_pool_s8_params *p, const int8_t *input,
			 int8_t *output)
{
#if TINYAOT_MVE_KERNELS
	tinyaot_avg_pool_s8_mve(p, input, output);
#else
	if (p->d.channels % 4 == 0) {
		tinyaot_avg_pool_s8_c4(p, input, output);
	} else {
		tinyaot_avg_pool_q(p, input, output, 0);
	}
#endif
}

void tinyaot_avg_pool_s16(const struct tinyaot_pool_s8_params *p, const int16_t *input,
			  int16_t *output)
{
	tinyaot_avg_pool_q(p, input, output, 1);
}

void tinyaot_avg_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input,
			  float *output)
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
			float acc = 0.0f;

			for (int32_t y = y0; y < y1; y++) {
				for (int32_t x = x0; x < x1; x++) {
					acc += in_b[(y * d->in_w + x) * d->channels + c];
				}
			}
			acc = acc / count;
			acc = acc < p->act_min ? p->act_min : acc;
			output[pix * d->channels + c] = acc > p->act_max ? p->act_max : acc;
		}
	}
}
