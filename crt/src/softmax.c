/* SOFTMAX. The int8 path is TFLite's gemmlowp fixed-point algorithm step by step:
 * exp of the scaled difference to the row maximum in Q0.31, a Q12.19 sum, and a
 * Newton-Raphson reciprocal; any other rounding would not be bit-exact.
 */
#include <stddef.h>

#include <tinyaot/clz.h>
#include <tinyaot/expf.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/gemmlowp.h>
#include <tinyaot/softmax.h>

#define SCALED_DIFF_INT_BITS 5
#define ACCUM_INT_BITS       12

/* The Q0.31 exp of a difference to the row maximum, diff_min <= diff <= 0. */
static inline int32_t tinyaot_softmax_exp(const struct tinyaot_softmax_s8_params *p, int32_t diff)
{
	if (p->exp_table != NULL) {
		return p->exp_table[-diff];
	}
	return tinyaot_exp_on_negative_values(
		tinyaot_srdhm((int32_t)((uint32_t)diff << p->input_left_shift),
			      p->input_multiplier),
		SCALED_DIFF_INT_BITS);
}

/* int8 input to an int8 or (wide) int16 output, as TFLite's Softmax<int8_t, OutputT>: the
 * output's bits set the final shift and the offset to its lowest value. wide is a constant in
 * each caller.
 */
static inline void tinyaot_softmax_q(const struct tinyaot_softmax_s8_params *p, const int8_t *input,
				     void *output, const int32_t wide)
{
	const int32_t out_min = wide ? INT16_MIN : INT8_MIN;
	const int32_t out_max = wide ? INT16_MAX : INT8_MAX;

	for (int32_t r = 0; r < p->rows; r++) {
		const int8_t *in = input + r * p->depth;
		const int32_t row = r * p->depth;
		int32_t max_in_row = INT8_MIN;
		int32_t sum_of_exps = 0;

		for (int32_t c = 0; c < p->depth; c++) {
			max_in_row = tinyaot_max_i32(max_in_row, in[c]);
		}
		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t diff = in[c] - max_in_row;

			if (diff >= p->diff_min) {
				sum_of_exps += tinyaot_rescale(tinyaot_softmax_exp(p, diff), 0,
							       ACCUM_INT_BITS);
			}
		}

		const int32_t headroom_plus_one = tinyaot_clz32((uint32_t)sum_of_exps);
		const int32_t num_bits_over_unit = ACCUM_INT_BITS - headroom_plus_one;
		const int32_t shifted_sum_minus_one =
			(int32_t)(((uint32_t)sum_of_exps << headroom_plus_one) - (1u << 31));
		const int32_t shifted_scale = tinyaot_one_over_one_plus_x(shifted_sum_minus_one);

		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t diff = in[c] - max_in_row;

			if (diff >= p->diff_min) {
				const int32_t exp_in_0 = tinyaot_softmax_exp(p, diff);
				const int32_t unsat =
					tinyaot_rdbpot(tinyaot_srdhm(shifted_scale, exp_in_0),
						       num_bits_over_unit + 31 - (wide ? 16 : 8));
				const int32_t v =
					tinyaot_clamp_i32(unsat + out_min, out_min, out_max);

				if (wide) {
					((int16_t *)output)[row + c] = (int16_t)v;
				} else {
					((int8_t *)output)[row + c] = (int8_t)v;
				}
			} else if (wide) {
				((int16_t *)output)[row + c] = INT16_MIN;
			} else {
				((int8_t *)output)[row + c] = INT8_MIN;
			}
		}
	}
}

void tinyaot_softmax_s8(const struct tinyaot_softmax_s8_params *p, const int8_t *input,
			int8_t *output)
{
	tinyaot_softmax_q(p, input, output, 0);
}

void tinyaot_softmax_s8_s16(const struct tinyaot_softmax_s8_params *p, const int8_t *input,
			    int16_t *output)
{
	tinyaot_softmax_q(p, input, output, 1);
}

/* TFLite's LUTLookup: the top 9 bits pick an entry, the low 7 interpolate to the next. */
static int16_t tinyaot_softmax_lut16(int16_t value, const int16_t *lut)
{
	const int32_t index = 256 + (value >> 7);
	const int32_t offset = value & 0x7F;
	const int32_t base = lut[index];
	const int32_t slope = lut[index + 1] - base;

	return (int16_t)(base + ((slope * offset + 64) >> 7));
}

/* TFLite's SoftmaxInt16: exp of each scaled difference to the row maximum from a table,
 * their Q16.15 sum normalised by its leading zeros, its reciprocal from the second table,
 * and each exp rescaled by it with one rounding shift. The exps wait in the output row,
 * as in the interpreter, so a row is read whole before its first output is final.
 */
void tinyaot_softmax_s16(const struct tinyaot_softmax_s16_params *p, const int16_t *input,
			 int16_t *output)
{
	for (int32_t r = 0; r < p->rows; r++) {
		const int16_t *in = input + r * p->depth;
		int16_t *out = output + r * p->depth;
		int32_t max_in_row = INT16_MIN;
		int32_t sum_of_exps = 0;

		for (int32_t c = 0; c < p->depth; c++) {
			max_in_row = tinyaot_max_i32(max_in_row, in[c]);
		}
		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t scaled = tinyaot_mbqm(in[c] - max_in_row, p->input_multiplier,
							    p->input_left_shift);
			const int32_t sym =
				tinyaot_clamp_i32(scaled + INT16_MAX, INT16_MIN, INT16_MAX);

			out[c] = tinyaot_softmax_lut16((int16_t)sym, p->exp_lut);
			sum_of_exps += out[c];
		}

		const int32_t headroom_plus_one = tinyaot_clz32((uint32_t)sum_of_exps);
		const int32_t shifted_sum =
			(int32_t)((((int64_t)sum_of_exps << (headroom_plus_one - 1)) + (1 << 13)) >>
				  14);
		/* x = sum - 1, recentred from [0, 65535] to the table's [-32768, 32767]. */
		const int32_t sym_sum = tinyaot_clamp_i32(shifted_sum - ((1 << 15) + (1 << 16)),
							  INT16_MIN, INT16_MAX);
		const int64_t reciprocal = tinyaot_softmax_lut16((int16_t)sym_sum, p->recip_lut);
		const int32_t right_shift = 31 - headroom_plus_one;
		const int64_t round = (int64_t)1 << (right_shift - 1);

		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t v = (int32_t)((out[c] * reciprocal + round) >> right_shift);

			out[c] = (int16_t)tinyaot_clamp_i32(v, 0, INT16_MAX);
		}
	}
}

void tinyaot_softmax_f32(const struct tinyaot_softmax_f32_params *p, const float *input,
			 float *output)
{
	for (int32_t r = 0; r < p->rows; r++) {
		const float *in = input + r * p->depth;
		float *out = output + r * p->depth;
		float max = in[0];
		float sum = 0.0f;

		for (int32_t c = 1; c < p->depth; c++) {
			max = in[c] > max ? in[c] : max;
		}
		for (int32_t c = 0; c < p->depth; c++) {
			out[c] = tinyaot_expf((in[c] - max) * p->beta);
			sum += out[c];
		}
		for (int32_t c = 0; c < p->depth; c++) {
			out[c] = out[c] / sum;
		}
	}
}
