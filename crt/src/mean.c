/* Reference MEAN (TFLM's QuantizedMeanOrSum for int8 and int16, Mean for float). Each output sums
 * its inputs in increasing address order, the order TFLM's row-major walk adds them in,
 * which makes the float sums identical too.
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/mean.h>

/* The reduced dimensions of more than one element, in their order, innermost last, after
 * those of one: the innermost loop walks a real dimension by pointer steps (a channel dimension
 * that is kept, innermost, would otherwise make every element a loop of its own). The order of
 * the sums is the shape's, increasing addresses.
 */
struct tinyaot_mean_walk {
	int32_t n[4];
	int32_t step[4]; /* input elements */
};

static struct tinyaot_mean_walk tinyaot_mean_walk_of(const struct tinyaot_mean_shape *s)
{
	struct tinyaot_mean_walk w;
	int32_t k = 3;

	for (int32_t d = 3; d >= 0; d--) {
		if (s->red[d] > 1) {
			w.n[k] = s->red[d];
			w.step[k] = s->stride[d];
			k--;
		}
	}
	for (; k >= 0; k--) {
		w.n[k] = 1;
		w.step[k] = 0;
	}
	return w;
}

/* int8 or (wide) int16 elements; wide is a constant in each caller. */
static inline int32_t tinyaot_mean_sum_q(const struct tinyaot_mean_walk *w, const void *in,
					 const int32_t wide)
{
	/* TFLM lets the int32 sum wrap; unsigned arithmetic does so without undefined behaviour. */
	uint32_t acc = 0;
	const int32_t size = wide ? 2 : 1;
	const char *p0 = (const char *)in;

	for (int32_t r0 = 0; r0 < w->n[0]; r0++, p0 += w->step[0] * size) {
		const char *p1 = p0;

		for (int32_t r1 = 0; r1 < w->n[1]; r1++, p1 += w->step[1] * size) {
			const char *p2 = p1;

			for (int32_t r2 = 0; r2 < w->n[2]; r2++, p2 += w->step[2] * size) {
				const char *q = p2;

				for (int32_t r3 = 0; r3 < w->n[3]; r3++, q += w->step[3] * size) {
					acc += (uint32_t)(wide ? *(const int16_t *)(const void *)q
							       : *(const int8_t *)q);
				}
			}
		}
	}
	return (int32_t)acc;
}

static float sum_f32(const struct tinyaot_mean_walk *w, const float *in)
{
	float acc = 0.0f;

	for (int32_t r0 = 0; r0 < w->n[0]; r0++, in += w->step[0]) {
		const float *p1 = in;

		for (int32_t r1 = 0; r1 < w->n[1]; r1++, p1 += w->step[1]) {
			const float *p2 = p1;

			for (int32_t r2 = 0; r2 < w->n[2]; r2++, p2 += w->step[2]) {
				const float *q = p2;

				for (int32_t r3 = 0; r3 < w->n[3]; r3++, q += w->step[3]) {
					acc += *q;
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
	const struct tinyaot_mean_walk w = tinyaot_mean_walk_of(s);
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
					const int32_t sum = (int32_t)((uint32_t)tinyaot_mean_sum_q(
									      &w, x, wide) +
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
	const struct tinyaot_mean_walk w = tinyaot_mean_walk_of(s);

	for (int32_t o0 = 0; o0 < s->out[0]; o0++) {
		for (int32_t o1 = 0; o1 < s->out[1]; o1++) {
			for (int32_t o2 = 0; o2 < s->out[2]; o2++) {
				for (int32_t o3 = 0; o3 < s->out[3]; o3++) {
					const float *x = input + o0 * s->stride[0] +
							 o1 * s->stride[1] + o2 * s->stride[2] +
							 o3 * s->stride[3];

					/* A division, not a product with 1/count: TFLM divides. */
					*output++ = sum_f32(&w, x) / p->count;
				}
			}
		}
	}
}
