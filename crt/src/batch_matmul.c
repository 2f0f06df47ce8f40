/* Reference BATCH_MATMUL. TFLM copies operands transposed into persistent buffers and runs
 * a column-major product; the sums are the same (each over k ascending from zero), so this
 * reads the operands through strides instead and writes the output row by row.
 */
#include <tinyaot/batch_matmul.h>
#include <tinyaot/fixedpoint.h>

void tinyaot_batch_matmul_s8(const struct tinyaot_batch_matmul_s8_params *p, const int8_t *lhs,
			     const int8_t *rhs, int8_t *output)
{
	const struct tinyaot_batch_matmul_dims *d = &p->d;
	const int32_t n = tinyaot_batch_matmul_outputs(d);

	for (int32_t o = 0; o < n; o++) {
		int32_t a, b, acc = 0;

		tinyaot_batch_matmul_operands(d, o, &a, &b);
		for (int32_t k = 0; k < d->depth; k++) {
			acc += (lhs[a + k * d->lhs_depth] + p->lhs_offset) *
			       (rhs[b + k * d->rhs_depth] + p->rhs_offset);
		}
		acc = tinyaot_mbqm(acc, p->multiplier, p->shift) + p->output_offset;
		output[o] = (int8_t)tinyaot_clamp_i32(acc, INT8_MIN, INT8_MAX);
	}
}

/* TFLM's int64 accumulator and the int64 MultiplyByQuantizedMultiplier. */
void tinyaot_batch_matmul_s16(const struct tinyaot_batch_matmul_s16_params *p, const int16_t *lhs,
			      const int16_t *rhs, int16_t *output)
{
	const struct tinyaot_batch_matmul_dims *d = &p->d;
	const int32_t n = tinyaot_batch_matmul_outputs(d);

	for (int32_t o = 0; o < n; o++) {
		int32_t a, b;
		int64_t acc = 0;

		tinyaot_batch_matmul_operands(d, o, &a, &b);
		for (int32_t k = 0; k < d->depth; k++) {
			acc += (int64_t)lhs[a + k * d->lhs_depth] * rhs[b + k * d->rhs_depth];
		}
		const int32_t v = tinyaot_mbqm64(acc, p->multiplier, p->shift);

		output[o] = (int16_t)tinyaot_clamp_i32(v, INT16_MIN, INT16_MAX);
	}
}

void tinyaot_batch_matmul_f32(const struct tinyaot_batch_matmul_f32_params *p, const float *lhs,
			      const float *rhs, float *output)
{
	const struct tinyaot_batch_matmul_dims *d = &p->d;
	const int32_t n = tinyaot_batch_matmul_outputs(d);

	for (int32_t o = 0; o < n; o++) {
		int32_t a, b;
		float acc = 0.0f;

		tinyaot_batch_matmul_operands(d, o, &a, &b);
		for (int32_t k = 0; k < d->depth; k++) {
			acc += lhs[a + k * d->lhs_depth] * rhs[b + k * d->rhs_depth];
		}
		output[o] = acc;
	}
}
