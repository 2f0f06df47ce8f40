/* SOFTMAX. The int8 path is TFLite's gemmlowp fixed-point algorithm step by step:
 * exp of the scaled difference to the row maximum in Q0.31, a Q12.19 sum, and a
 * Newton-Raphson reciprocal; any other rounding would not be bit-exact.
 */
#include <tinyaot/expf.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/softmax.h>

#define SCALED_DIFF_INT_BITS 5
#define ACCUM_INT_BITS       12

/* gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent. */
static int32_t sat_shift_left(int32_t x, int32_t exponent)
{
	const int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);

	if (x > threshold) {
		return INT32_MAX;
	}
	if (x < -threshold) {
		return INT32_MIN;
	}
	return (int32_t)((uint32_t)x << exponent);
}

/* Rescale a fixed-point raw value from src to dst integer bits. */
static int32_t rescale(int32_t x, int32_t src_bits, int32_t dst_bits)
{
	const int32_t e = src_bits - dst_bits;

	return e > 0 ? sat_shift_left(x, e) : (e < 0 ? tinyaot_rdbpot(x, -e) : x);
}

/* exp(a) for a in [-1/4, 0), Q0.31 in and out. */
static int32_t exp_quarter(int32_t a)
{
	const int32_t constant_term = 1895147668;    /* exp(-1/8) */
	const int32_t constant_1_over_3 = 715827883; /* 1/3 */
	const int32_t x = a + (1 << 28);             /* a + 1/8 */
	const int32_t x2 = tinyaot_srdhm(x, x);
	const int32_t x3 = tinyaot_srdhm(x2, x);
	const int32_t x4 = tinyaot_srdhm(x2, x2);
	const int32_t x4_over_4 = tinyaot_rdbpot(x4, 2);
	const int32_t poly =
		tinyaot_rdbpot(tinyaot_srdhm(x4_over_4 + x3, constant_1_over_3) + x2, 1);

	return constant_term + tinyaot_srdhm(constant_term, x + poly);
}

/* gemmlowp exp_on_negative_values for a Q5.26 input: Q0.31 result. */
static int32_t exp_on_negative_values(int32_t a)
{
	static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308,
					       39332535,   720401,     242};
	const int32_t frac_bits = 31 - SCALED_DIFF_INT_BITS;
	const int32_t one_quarter = 1 << (frac_bits - 2);
	const int32_t mask = one_quarter - 1;
	const int32_t a_mod_quarter_minus_quarter = (a & mask) - one_quarter;
	int32_t result = exp_quarter(rescale(a_mod_quarter_minus_quarter, SCALED_DIFF_INT_BITS, 0));
	const int32_t remainder = a_mod_quarter_minus_quarter - a;

	/* Barrel shifter: multiply by exp(-2^e) for each bit e = -2..4 of the remainder. */
	for (int32_t i = 0; i < 7; i++) {
		const int32_t e = i - 2;

		if (SCALED_DIFF_INT_BITS > e && (remainder & (1 << (frac_bits + e))) != 0) {
			result = tinyaot_srdhm(result, multipliers[i]);
		}
	}
	return a == 0 ? INT32_MAX : result;
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1: Q0.31 in, Q0.31 out. */
static int32_t one_over_one_plus_x(int32_t a)
{
	const int64_t sum = (int64_t)a + INT32_MAX;
	const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
	const int32_t constant_48_over_17 = 1515870810;
	const int32_t constant_neg_32_over_17 = -1010580540;
	const int32_t one_q2 = 1 << 29;
	int32_t x = constant_48_over_17 + tinyaot_srdhm(half_denominator, constant_neg_32_over_17);

	for (int i = 0; i < 3; i++) {
		const int32_t half_denominator_times_x = tinyaot_srdhm(half_denominator, x);
		const int32_t one_minus = one_q2 - half_denominator_times_x;

		x = x + rescale(tinyaot_srdhm(x, one_minus), 4, 2);
	}
	return rescale(x, 1, 0);
}

static int32_t count_leading_zeros(uint32_t x)
{
	int32_t n = 0;

	if (x == 0) {
		return 32;
	}
	while ((x & 0x80000000u) == 0) {
		x <<= 1;
		n++;
	}
	return n;
}

void tinyaot_softmax_s8(const struct tinyaot_softmax_s8_params *p, const int8_t *input,
			int8_t *output)
{
	for (int32_t r = 0; r < p->rows; r++) {
		const int8_t *in = input + r * p->depth;
		int8_t *out = output + r * p->depth;
		int32_t max_in_row = INT8_MIN;
		int32_t sum_of_exps = 0;

		for (int32_t c = 0; c < p->depth; c++) {
			max_in_row = tinyaot_max_i32(max_in_row, in[c]);
		}
		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t diff = in[c] - max_in_row;

			if (diff >= p->diff_min) {
				const int32_t scaled = tinyaot_srdhm(
					(int32_t)((uint32_t)diff << p->input_left_shift),
					p->input_multiplier);

				sum_of_exps +=
					rescale(exp_on_negative_values(scaled), 0, ACCUM_INT_BITS);
			}
		}

		const int32_t headroom_plus_one = count_leading_zeros((uint32_t)sum_of_exps);
		const int32_t num_bits_over_unit = ACCUM_INT_BITS - headroom_plus_one;
		const int32_t shifted_sum_minus_one =
			(int32_t)(((uint32_t)sum_of_exps << headroom_plus_one) - (1u << 31));
		const int32_t shifted_scale = one_over_one_plus_x(shifted_sum_minus_one);

		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t diff = in[c] - max_in_row;

			if (diff >= p->diff_min) {
				const int32_t scaled = tinyaot_srdhm(
					(int32_t)((uint32_t)diff << p->input_left_shift),
					p->input_multiplier);
				const int32_t exp_in_0 = exp_on_negative_values(scaled);
				const int32_t unsat =
					tinyaot_rdbpot(tinyaot_srdhm(shifted_scale, exp_in_0),
						       num_bits_over_unit + 31 - 8);

				out[c] = (int8_t)tinyaot_clamp_i32(unsat + INT8_MIN, INT8_MIN,
								   INT8_MAX);
			} else {
				out[c] = INT8_MIN;
			}
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
