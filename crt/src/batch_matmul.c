/* Reference BATCH_MATMUL. TFLM copies operands transposed into persistent buffers and runs
 * a column-major product; the sums are the same (each over k ascending from zero), so this
 * reads the operands through strides instead and writes the output row by row.
 */
#include <tinyaot/batch_matmul.h>
#include <tinyaot/fixedpoint.h>

/* The offsets of the lhs and rhs matrices of output matrix n. */
static void operands(const struct tinyaot_batch_matmul_dims *d, int32_t n, int32_t *lhs,
		     int32_t *rhs)
{
	const int32_t b2 = n % d->batch[2];
	const int32_t b1 = (n / d->batch[2]) % d->batch[1];
	const int32_t b0 = n / (d->batch[2] * d->batch[1]);

	*lhs = b0 * d->lhs_batch[0] + b1 * d->lhs_batch[1] + b2 * d->lhs_batch[2];
	*rhs = b0 * d->rhs_batch[0] + b1 * d->rhs_batch[1] + b2 * d->rhs_batch[2];
}

void tinyaot_batch_matmul_s8(const struct tinyaot_batch_matmul_s8_params *p, const int8_t *lhs,
			     const int8_t *rhs, int8_t *output)
{
	const struct tinyaot_batch_matmul_dims *d = &p->d;
	const int32_t matrices = d->batch[0] * d->batch[1] * d->batch[2];

	for (int32_t n = 0; n < matrices; n++) {
		int32_t lo, ro;

		operands(d, n, &lo, &ro);
		for (int32_t i = 0; i < d->rows; i++) {
			const int8_t *a = lhs + lo + i * d->lhs_row;

			for (int32_t j = 0; j < d->cols; j++) {
				const int8_t *b = rhs + ro + j * d->rhs_col;
				int32_t acc = 0;

				for (int32_t k = 0; k < d->depth; k++) {
					acc += (a[k * d->lhs_depth] + p->lhs_offset) *
					       (b[k * d->rhs_depth] + p->rhs_offset);
				}
				acc = tinyaot_mbqm(acc, p->multiplier, p->shift) + p->output_offset;
				*output++ = (int8_t)tinyaot_clamp_i32(acc, INT8_MIN, INT8_MAX);
			}
		}
	}
}

void tinyaot_batch_matmul_f32(const struct tinyaot_batch_matmul_f32_params *p, const float *lhs,
			      const float *rhs, float *output)
{
	const struct tinyaot_batch_matmul_dims *d = &p->d;
	const int32_t matrices = d->batch[0] * d->batch[1] * d->batch[2];

	for (int32_t n = 0; n < matrices; n++) {
		int32_t lo, ro;

		operands(d, n, &lo, &ro);
		for (int32_t i = 0; i < d->rows; i++) {
			const float *a = lhs + lo + i * d->lhs_row;

			for (int32_t j = 0; j < d->cols; j++) {
				const float *b = rhs + ro + j * d->rhs_col;
				float acc = 0.0f;

				for (int32_t k = 0; k < d->depth; k++) {
					acc += a[k * d->lhs_depth] * b[k * d->rhs_depth];
				}
				*output++ = acc;
			}
		}
	}
}
