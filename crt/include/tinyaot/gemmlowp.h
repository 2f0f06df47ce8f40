/*
 * gemmlowp's fixed-point exp and reciprocal, which TFLite's int8 SOFTMAX and LOGISTIC are
 * built on. Each step rounds exactly as gemmlowp does: bit-exactness depends on it.
 * Raw int32 values; "Qm" means m integer bits and 31 - m fraction bits.
 */
#ifndef TINYAOT_GEMMLOWP_H_
#define TINYAOT_GEMMLOWP_H_

#include <stdint.h>
#include <tinyaot/fixedpoint.h>

/* SaturatingRoundingMultiplyByPOT for a positive exponent. */
static inline int32_t tinyaot_sat_shift_left(int32_t x, int32_t exponent)
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

/* Rescale from src to dst integer bits. */
static inline int32_t tinyaot_rescale(int32_t x, int32_t src_bits, int32_t dst_bits)
{
	const int32_t e = src_bits - dst_bits;

	return e > 0 ? tinyaot_sat_shift_left(x, e) : (e < 0 ? tinyaot_rdbpot(x, -e) : x);
}

/* exp(a) for a in [-1/4, 0), Q0 in and out. */
static inline int32_t tinyaot_exp_quarter(int32_t a)
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

/* exp_on_negative_values: a <= 0 in Q(int_bits), int_bits <= 5 (gemmlowp's clamp below
 * -32 only exists for more integer bits); Q0 result.
 */
static inline int32_t tinyaot_exp_on_negative_values(int32_t a, int32_t int_bits)
{
	/* exp(-2^e) in Q0 for e = -2..4: the barrel shifter over the remainder's bits. */
	static const int32_t tinyaot_exp_multipliers[7] = {
		1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
	const int32_t frac_bits = 31 - int_bits;
	const int32_t one_quarter = 1 << (frac_bits - 2);
	const int32_t a_mod_quarter_minus_quarter = (a & (one_quarter - 1)) - one_quarter;
	const int32_t remainder = a_mod_quarter_minus_quarter - a;
	int32_t result =
		tinyaot_exp_quarter(tinyaot_rescale(a_mod_quarter_minus_quarter, int_bits, 0));

	for (int32_t i = 0; i < 7 && i - 2 < int_bits; i++) {
		if ((remainder & (1 << (frac_bits - 2 + i))) != 0) {
			result = tinyaot_srdhm(result, tinyaot_exp_multipliers[i]);
		}
	}
	return a == 0 ? INT32_MAX : result;
}

/* one_over_one_plus_x_for_x_in_0_1: Q0 in, Q0 out (Newton-Raphson, three steps). */
static inline int32_t tinyaot_one_over_one_plus_x(int32_t a)
{
	const int64_t sum = (int64_t)a + INT32_MAX;
	const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
	const int32_t constant_48_over_17 = 1515870810;
	const int32_t constant_neg_32_over_17 = -1010580540;
	const int32_t one_q2 = 1 << 29;
	int32_t x = constant_48_over_17 + tinyaot_srdhm(half_denominator, constant_neg_32_over_17);

	for (int i = 0; i < 3; i++) {
		const int32_t one_minus = one_q2 - tinyaot_srdhm(half_denominator, x);

		x = x + tinyaot_rescale(tinyaot_srdhm(x, one_minus), 4, 2);
	}
	return tinyaot_rescale(x, 1, 0);
}

#endif /* TINYAOT_GEMMLOWP_H_ */
