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
