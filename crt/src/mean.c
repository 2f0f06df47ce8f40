/* Reference MEAN (TFLM's QuantizedMeanOrSum for int8 and int16, Mean for float). Each output sums
 * its inputs in increasing address order, the order TFLM's row-major walk adds them in,
 * which makes the float sums identical too.
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/mean.h>

/* int8 or (wide) int16 elements; wide is a constant in each caller. */
static inline int32_t tinyaot_mean_sum_q(const struct tinyaot_mean_shape *s, const void *in,
					 const int32_t wide)
{
	/* TFLM lets the int32 sum wrap; unsigned arithmetic does so without undefined behaviour. */
	uint32_t acc = 0;

	for (int32_t r0 = 0; r0 < s->red[0]; r0++) {
		for (int32_t r1 = 0; r1 < s->red[1]; r1++) {
			for (int32_t r2 = 0; r2 < s->red[2]; r2++) {
				const int32_t base =
					r0 * s->stride[0] + r1 * s->stride[1] + r2 * s->stride[2];

				for (int32_t r3 = 0; r3 < s->red[3]; r3++) {
					const int32_t i = base + r3 * s->stride[3];
					const int32_t v = wide ? ((const int16_t *)in)[i]
							       : ((const int8_t *)in)[i];

					acc += (uint32_t)v;
				}
			}
		}
	}
	return (int32_t)acc;
}

static float sum_f32(const struct tinyaot_mean_shape *s, const float *in)
{
	float acc = 0.0f;

	for (int32_t r0 = 0; r0 < s->red[0]; r0++) {
		for (int32_t r1 = 0; r1 < s->red[1]; r1++) {
			for (int32_t r2 = 0; r2 < s->red[2]; r2++) {
				const float *x = in + r0 * s->stride[0] + r1 * s->stride[1] +
						 r2 * s->stride[2];

				for (int32_t r3 = 0; r3 < s->red[3]; r3++) {
					acc += x[r3 * s->stride[3]];
				}
			}
		}
	}
	return acc;
}

/* QuantizedMeanOrSum for int8 or (wide) int16: the same int32 steps, the clamp to the type. */
static inline void tinyaot_mean_q(const struct tinyaot_mean_s8_params *p, const void *input,
				  void *output, const int32_t wide)
{
	const struct tinyaot_mean_shape *s = &p->s;
	const int32_t lo = wide ? INT16_MIN : INT8_MIN;
	const int32_t hi = wide ? INT16_MAX : INT8_MAX;
	int32_t n = 0;

	for (int32_t o0 = 0; o0 < s->out[0]; o0++) {
		for (int32_t o1 = 0; o1 < s->out[1]; o1++) {
			for (int32_t o2 = 0; o2 < s->out[2]; o2++) {
				for (int32_t o3 = 0; o3 < s->out[3]; o3++) {
					const int32_t at = o0 * s->stride[0] + o1 * s->stride[1] +
							   o2 * s->stride[2] + o3 * s->stride[3];
					const void *x =
						wide ? (const void *)((const int16_t *)input + at)
						     : (const void *)((const int8_t *)input + at);
					const int32_t sum =
						(int32_t)((uint32_t)tinyaot_mean_sum_q(s, x, wide) +
							  (uint32_t)p->sum_offset);
					const int32_t out = tinyaot_clamp_i32(
						tinyaot_mbqm(sum, p->multiplier, p->shift) +
							p->output_offset,
						lo, hi);

					if (wide) {
						((int16_t *)output)[n++] = (int16_t)out;
					} else {
						((int8_t *)output)[n++] = (int8_t)out;
					}
				}
			}
		}
	}
}

void tinyaot_mean_s8(const struct tinyaot_mean_s8_params *p, const int8_t *input, int8_t *output)
{
	tinyaot_mean_q(p, input, output, 0);
}

void tinyaot_mean_s16(const struct tinyaot_mean_s8_params *p, const int16_t *input, int16_t *output)
{
	tinyaot_mean_q(p, input, output, 1);
}

void tinyaot_mean_f32(const struct tinyaot_mean_f32_params *p, const float *input, float *output)
{
	const struct tinyaot_mean_shape *s = &p->s;

	for (int32_t o0 = 0; o0 < s->out[0]; o0++) {
		for (int32_t o1 = 0; o1 < s->out[1]; o1++) {
			for (int32_t o2 = 0; o2 < s->out[2]; o2++) {
				for (int32_t o3 = 0; o3 < s->out[3]; o3++) {
					const float *x = input + o0 * s->stride[0] +
							 o1 * s->stride[1] + o2 * s->stride[2] +
							 o3 * s->stride[3];

					/* A division, not a product with 1/count: TFLM divides. */
					*output++ = sum_f32(s, x) / p->count;
				}
			}
		}
	}
}
