/* Reference LOG_SOFTMAX. int8 is TFLM's LogSoftmaxQuantized step for step: each difference
 * from the row's maximum scaled to Q5.26, gemmlowp's exp of it summed in Q12, gemmlowp's
 * log of the sum (log_x_for_x_greater_than_or_equal_to_1, Q5.26), and each difference minus
 * that log rounded to the Q4 output; a difference too small to show maps to -128. float32
 * follows TFLM's order (maximum, sum of exps, log, subtractions) with tinyaot_expf and a
 * log of our own, without libm.
 */
#include <float.h>
#include <string.h>

#include <tinyaot/clz.h>
#include <tinyaot/expf.h>
#include <tinyaot/gemmlowp.h>
#include <tinyaot/log_softmax.h>

static int32_t add_wrap(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a + (uint32_t)b);
}

static int32_t saturate64(int64_t x)
{
	return (int32_t)(x > INT32_MAX ? INT32_MAX : (x < INT32_MIN ? INT32_MIN : x));
}

/* gemmlowp RoundingHalfSum. */
static int32_t rounding_half_sum(int32_t a, int32_t b)
{
	const int64_t sum = (int64_t)a + b;

	return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* log_x_for_x_greater_than_or_equal_to_1<5>(x in Q12): Q5 out, accumulated in Q6. */
static int32_t log_q12(int32_t z)
{
	const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
	const int32_t alpha_n = 117049297, alpha_d = 127690142;
	const int32_t alpha_i = 1057819769, alpha_f = 638450708;
	const int32_t quarter = tinyaot_rdbpot(536870912, 6); /* 1/4 in Q6 */
	const int32_t a_headroom_plus_1 = tinyaot_clz32((uint32_t)z);
	const int32_t r_a_tmp = tinyaot_sat_shift_left(z, a_headroom_plus_1 - 1);
	const int32_t r_a = tinyaot_sat_shift_left(tinyaot_srdhm(r_a_tmp, sqrt_half), 1);
	const int32_t a_pow_2 =
		saturate64((int64_t)tinyaot_sat_shift_left(12 - a_headroom_plus_1, 25) + quarter);
	const int32_t z_b = tinyaot_srdhm(z, sqrt_half);
	const int32_t b_headroom = tinyaot_clz32((uint32_t)z_b) - 1;
	const int32_t r_b = tinyaot_sat_shift_left(z, b_headroom);
	const int32_t b_pow_2 =
		saturate64((int64_t)tinyaot_sat_shift_left(12 - b_headroom, 25) - quarter);
	const int32_t r = tinyaot_min_i32(r_a, r_b);
	const int32_t pow_2 = tinyaot_max_i32(a_pow_2, b_pow_2);
	const int32_t p = rounding_half_sum(r, sqrt_sqrt_half);
	int32_t q = add_wrap(r, -sqrt_sqrt_half);

	q = add_wrap(q, q);
	const int32_t sq = tinyaot_srdhm(q, q);
	const int32_t num =
		add_wrap(tinyaot_srdhm(q, r), tinyaot_srdhm(tinyaot_srdhm(q, sq), alpha_n));
	const int32_t denom_minus_one = add_wrap(
		tinyaot_srdhm(p, add_wrap(add_wrap(alpha_i, q), tinyaot_srdhm(alpha_d, sq))),
		tinyaot_srdhm(alpha_f, q));
	const int32_t recip = tinyaot_one_over_one_plus_x(denom_minus_one);
	const int32_t sum =
		add_wrap(tinyaot_srdhm(pow_2, log_2), tinyaot_srdhm(tinyaot_rdbpot(num, 6), recip));

	return tinyaot_rescale(sum, 6, 5);
}

void tinyaot_log_softmax_s8(const struct tinyaot_log_softmax_s8_params *p, const int8_t *input,
			    int8_t *output)
{
	for (int32_t r = 0; r < p->rows; r++) {
		const int8_t *x = input + r * p->depth;
		int8_t *y = output + r * p->depth;
		int32_t max = INT8_MIN, sum = 0;

		for (int32_t c = 0; c < p->depth; c++) {
			max = tinyaot_max_i32(max, x[c]);
		}
		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t diff = x[c] - max;

			if (diff >= p->diff_min) {
				const int32_t scaled = tinyaot_mbqm(diff, p->input_multiplier,
								    p->input_left_shift);

				sum = add_wrap(sum, tinyaot_rdbpot(tinyaot_exp_on_negative_values(
									   scaled, 5),
								   12));
			}
		}
		const int32_t log_sum = log_q12(sum);
		const int32_t adjusted_diff_min = tinyaot_max_i32(
			p->diff_min - 1, tinyaot_mbqm(add_wrap(log_sum, INT32_MIN),
						      p->reverse_divisor, p->reverse_shift));

		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t diff = x[c] - max;
			int32_t v = INT8_MIN;

			if (diff > adjusted_diff_min) {
				const int32_t scaled = tinyaot_mbqm(diff, p->input_multiplier,
								    p->input_left_shift);

				v = tinyaot_rdbpot(add_wrap(scaled, -log_sum), 31 - 5 - 4) +
				    INT8_MAX;
			}
			y[c] = (int8_t)tinyaot_clamp_i32(v, INT8_MIN, INT8_MAX);
		}
	}
}

/* log(x) for the sum of exps (at least 1, or an infinity or NaN, returned as they are):
 * x = m * 2^e with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s) for s = (m - 1) / (m + 1),
 * whose series converges fast for |s| < 0.172, in double. */
static float log_f32(float x)
{
	uint32_t bits;

	memcpy(&bits, &x, sizeof(bits));
	const int32_t biased = (int32_t)(bits >> 23) & 0xFF;

	if (biased == 0xFF || x <= 0.0f) {
		return x;
	}
	int32_t e = biased - 127;
	double m = 1.0 + (double)(bits & 0x7FFFFFu) / 8388608.0;

	if (m > 1.4142135623730951) {
		m /= 2.0;
		e++;
	}
	const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
	double term = s, series = 0.0;

	for (int32_t k = 0; k < 12; k++) {
		series += term / (2 * k + 1);
		term *= s2;
	}
	return (float)(e * 0.6931471805599453 + 2.0 * series);
}

void tinyaot_log_softmax_f32(const struct tinyaot_log_softmax_f32_params *p, const float *input,
			     float *output)
{
	for (int32_t r = 0; r < p->rows; r++) {
		const float *x = input + r * p->depth;
		float *y = output + r * p->depth;
		float max = -FLT_MAX, sum = 0.0f;

		for (int32_t c = 0; c < p->depth; c++) {
			max = max < x[c] ? x[c] : max;
		}
		for (int32_t c = 0; c < p->depth; c++) {
			sum += tinyaot_expf(x[c] - max);
		}
		const float log_sum = log_f32(sum);

		for (int32_t c = 0; c < p->depth; c++) {
			y[c] = x[c] - max - log_sum;
		}
	}
}
