/* BATCH_MATMUL: out[batch][i][j] = sum over k of lhs[batch][i][k] * rhs[batch][k][j], either
 * operand read through strides (transposed when its adj flag is set) and broadcast across
 * up to three batch dims.
 */
#ifndef TINYAOT_BATCH_MATMUL_H_
#define TINYAOT_BATCH_MATMUL_H_

#include <stdint.h>

struct tinyaot_batch_matmul_dims {
	int32_t batch[3];
	int32_t lhs_batch[3], rhs_batch[3]; /* element strides, 0 where broadcast */
	int32_t rows, cols, depth;
	int32_t lhs_row, lhs_depth; /* element strides of lhs[i][k] */
	int32_t rhs_depth, rhs_col; /* element strides of rhs[k][j] */
};

/* The offsets of output element o's lhs row and rhs column. */
static inline void tinyaot_batch_matmul_operands(const struct tinyaot_batch_matmul_dims *d,
						 int32_t o, int32_t *lhs, int32_t *rhs)
{
	const int32_t j = o % d->cols;
	const int32_t i = (o / d->cols) % d->rows;
	const int32_t n = o / (d->cols * d->rows);
	const int32_t b2 = n % d->batch[2];
	const int32_t b1 = (n / d->batch[2]) % d->batch[1];
	const int32_t b0 = n / (d->batch[2] * d->batch[1]);

	*lhs = b0 * d->lhs_batch[0] + b1 * d->lhs_batch[1] + b2 * d->lhs_batch[2] + i * d->lhs_row;
	*rhs = b0 * d->rhs_batch[0] + b1 * d->rhs_batch[1] + b2 * d->rhs_batch[2] + j * d->rhs_col;
}

static inline int32_t tinyaot_batch_matmul_outputs(const struct tinyaot_batch_matmul_dims *d)
{
	return d->batch[0] * d->batch[1] * d->batch[2] * d->rows * d->cols;
}

struct tinyaot_batch_matmul_s8_params {
	struct tinyaot_batch_matmul_dims d;
	int32_t lhs_offset, rhs_offset; /* minus the zero points */
	int32_t output_offset;
	int32_t multiplier, shift; /* lhs scale * rhs scale / output scale */
};

/* int16: both operands and the output of zero point 0, as TFLM requires. */
struct tinyaot_batch_matmul_s16_params {
	struct tinyaot_batch_matmul_dims d;
	int32_t multiplier, shift; /* lhs scale * rhs scale / output scale */
};

struct tinyaot_batch_matmul_f32_params {
	struct tinyaot_batch_matmul_dims d;
};

void tinyaot_batch_matmul_s8(const struct tinyaot_batch_matmul_s8_params *p, const int8_t *lhs,
			     const int8_t *rhs, int8_t *output);
void tinyaot_batch_matmul_s16(const struct tinyaot_batch_matmul_s16_params *p, const int16_t *lhs,
			      const int16_t *rhs, int16_t *output);
void tinyaot_batch_matmul_f32(const struct tinyaot_batch_matmul_f32_params *p, const float *lhs,
			      const float *rhs, float *output);

#endif /* TINYAOT_BATCH_MATMUL_H_ */
