/* Broadcasting binary ops after TFLite Micro's reference kernels. Each op is one function
 * of two input elements; TINYAOT_BROADCAST_EACH runs it over the output. The int8 ops keep
 * TFLite's integer steps (offsets, left shifts, MultiplyByQuantizedMultiplier) in its
 * order, since rounding at each step decides the result.
 */
#include <tinyaot/binary.h>
#include <tinyaot/clz.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/gemmlowp.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>
#endif

/* int32 arithmetic wraps on overflow as on the interpreter's targets, not undefined. */
static int32_t wrap_sub_i32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a - (uint32_t)b);
}

static int32_t tinyaot_sub_one(const struct tinyaot_add_s8_params *p, int32_t a, int32_t b)
{
	const int32_t sa =
		tinyaot_mbqm((int32_t)((uint32_t)(a + p->input1_offset) << p->left_shift),
			     p->input1_multiplier, p->input1_shift);
	const int32_t sb =
		tinyaot_mbqm((int32_t)((uint32_t)(b + p->input2_offset) << p->left_shift),
			     p->input2_multiplier, p->input2_shift);
	const int32_t out =
		tinyaot_mbqm(sa - sb, p->output_multiplier, p->output_shift) + p->output_offset;

	return tinyaot_clamp_i32(out, p->act_min, p->act_max);
}

void tinyaot_sub_s8(const struct tinyaot_add_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       (int8_t)tinyaot_sub_one(p, input1[c.offset1], input2[c.offset2]));
}

void tinyaot_sub_s16(const struct tinyaot_add_s8_params *p, const int16_t *input1,
		     const int16_t *input2, int16_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       (int16_t)tinyaot_sub_one(p, input1[c.offset1], input2[c.offset2]));
}

void tinyaot_sub_f32(const struct tinyaot_binary_f32_params *p, const float *input1,
		     const float *input2, float *output)
{
	TINYAOT_BROADCAST_EACH(
		&p->b, output,
		tinyaot_clamp_f32(input1[c.offset1] - input2[c.offset2], p->act_min, p->act_max));
}

void tinyaot_sub_i32(const struct tinyaot_binary_i32_params *p, const int32_t *input1,
		     const int32_t *input2, int32_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       tinyaot_clamp_i32(wrap_sub_i32(input1[c.offset1], input2[c.offset2]),
						 p->act_min, p->act_max));
}

void tinyaot_add_i32(const struct tinyaot_binary_i32_params *p, const int32_t *input1,
		     const int32_t *input2, int32_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       tinyaot_clamp_i32((int32_t)((uint32_t)input1[c.offset1] +
							   (uint32_t)input2[c.offset2]),
						 p->act_min, p->act_max));
}

void tinyaot_mul_i32(const struct tinyaot_binary_i32_params *p, const int32_t *input1,
		     const int32_t *input2, int32_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       tinyaot_clamp_i32((int32_t)((uint32_t)input1[c.offset1] *
							   (uint32_t)input2[c.offset2]),
						 p->act_min, p->act_max));
}

/* TFLite's el1 > el2 ? el1 : el2 and el1 < el2 ? el1 : el2: a NaN second input wins. */
#define MAX_OF(x, y) ((x) > (y) ? (x) : (y))
#define MIN_OF(x, y) ((x) < (y) ? (x) : (y))

#if TINYAOT_MVE_KERNELS
/*
 * MAXIMUM and MINIMUM int8 with Helium: a row of the innermost dim 16 elements at a time (an
 * input broadcast along it is one VDUP), the row's last w % 16 predicated. Each group's reads
 * come before its writes, so the planner's overlaps hold.
 */
static void tinyaot_max_min_s8_mve(const struct tinyaot_binary_params *p, const int8_t *input1,
				   const int8_t *input2, int8_t *output, int max)
{
	TINYAOT_BROADCAST_ROWS(&p->b, {
		const int8_t *x1 = input1 + row.offset1;
		const int8_t *x2 = input2 + row.offset2;

		for (int32_t k = 0; k < w_; k += 16) {
			const mve_pred16_t live = vctp8q((uint32_t)(w_ - k));
			const int8x16_t a = s1_ ? vldrbq_z_s8(x1 + k, live) : vdupq_n_s8(*x1);
			const int8x16_t b = s2_ ? vldrbq_z_s8(x2 + k, live) : vdupq_n_s8(*x2);

			vstrbq_p_s8(output + i_ + k, max ? vmaxq_s8(a, b) : vminq_s8(a, b), live);
		}
	});
}
#endif

void tinyaot_maximum_s8(const struct tinyaot_binary_params *p, const int8_t *input1,
			const int8_t *input2, int8_t *output)
{
#if TINYAOT_MVE_KERNELS
	tinyaot_max_min_s8_mve(p, input1, input2, output, 1);
#else
	TINYAOT_BROADCAST_EACH(&p->b, output, MAX_OF(input1[c.offset1], input2[c.offset2]));
#endif
}

void tinyaot_maximum_f32(const struct tinyaot_binary_params *p, const float *input1,
			 const float *input2, float *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, MAX_OF(input1[c.offset1], input2[c.offset2]));
}

void tinyaot_maximum_i32(const struct tinyaot_binary_params *p, const int32_t *input1,
			 const int32_t *input2, int32_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, MAX_OF(input1[c.offset1], input2[c.offset2]));
}

void tinyaot_minimum_s8(const struct tinyaot_binary_params *p, const int8_t *input1,
			const int8_t *input2, int8_t *output)
{
#if TINYAOT_MVE_KERNELS
	tinyaot_max_min_s8_mve(p, input1, input2, output, 0);
#else
	TINYAOT_BROADCAST_EACH(&p->b, output, MIN_OF(input1[c.offset1], input2[c.offset2]));
#endif
}

void tinyaot_minimum_f32(const struct tinyaot_binary_params *p, const float *input1,
			 const float *input2, float *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, MIN_OF(input1[c.offset1], input2[c.offset2]));
}

void tinyaot_minimum_i32(const struct tinyaot_binary_params *p, const int32_t *input1,
			 const int32_t *input2, int32_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, MIN_OF(input1[c.offset1], input2[c.offset2]));
}

/* TFLite Micro's reciprocal of a zero divisor: one_over_one_plus_x_for_x_in_0_1 of INT32_MIN,
 * whose Newton steps overflow and wrap (gemmlowp.h's version would be undefined there).
 */
#define ZERO_DIVISOR_RECIPROCAL (-1515870788)

/* CountLeadingSignBits, for the int8 differences DIV sees. */
static int32_t leading_sign_bits(int32_t x)
{
	return x >= 0 ? tinyaot_clz32((uint32_t)x) - 1 : tinyaot_clz32((uint32_t)(-2 * x - 1));
}

/* gemmlowp's RoundingDivideByPOT as the x86-64 build of TFLite Micro the tests compare with
 * runs it past 31, where C++ leaves it undefined: the mask is all ones and the shift count
 * wraps mod 32. int8 DIV gets there for small dividends.
 */
static int32_t rdbpot_wide(int32_t x, int32_t exponent)
{
	if (exponent < 32) {
		return tinyaot_rdbpot(x, exponent);
	}
	return (x >> (exponent & 31)) + (x >= 0 ? 1 : 0);
}

/* DivElementwise: the divisor made positive, its reciprocal by Newton-Raphson
 * (GetReciprocal), the dividend shifted up to its headroom, and the product brought to the
 * output scale with every shift in one rounding step.
 */
static int8_t div_s8_one(const struct tinyaot_div_s8_params *p, int32_t a, int32_t b)
{
	int32_t x = a + p->input1_offset;
	int32_t y = b + p->input2_offset;

	if (y < 0) {
		x = -x;
		y = -y;
	}
	const int32_t leading = tinyaot_clz32((uint32_t)y);
	const int32_t inv = y == 0 ? ZERO_DIVISOR_RECIPROCAL
				   : tinyaot_one_over_one_plus_x(
					     (int32_t)(((uint32_t)y << leading) - 0x80000000u));
	const int32_t headroom = leading_sign_bits(x);
	const int32_t quotient = tinyaot_srdhm((int32_t)((uint32_t)x << headroom), inv);
	const int32_t out = rdbpot_wide(tinyaot_srdhm(quotient, p->output_multiplier),
					31 - leading + headroom - p->output_shift);

	return (int8_t)tinyaot_clamp_i32(out + p->output_offset, p->act_min, p->act_max);
}

void tinyaot_div_s8(const struct tinyaot_div_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, div_s8_one(p, input1[c.offset1], input2[c.offset2]));
}

void tinyaot_div_f32(const struct tinyaot_binary_f32_params *p, const float *input1,
		     const float *input2, float *output)
{
	TINYAOT_BROADCAST_EACH(
		&p->b, output,
		tinyaot_clamp_f32(input1[c.offset1] / input2[c.offset2], p->act_min, p->act_max));
}

/* C's division truncates toward zero, as TFLite's. A zero divisor (which stops the
 * interpreter with a fault) gives 0 and INT32_MIN / -1 wraps, so that no input is
 * undefined behaviour here.
 */
static int32_t div_i32(int32_t a, int32_t b)
{
	if (b == 0) {
		return 0;
	}
	if (b == -1) {
		return wrap_sub_i32(0, a);
	}
	return a / b;
}

void tinyaot_div_i32(const struct tinyaot_binary_i32_params *p, const int32_t *input1,
		     const int32_t *input2, int32_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       tinyaot_clamp_i32(div_i32(input1[c.offset1], input2[c.offset2]),
						 p->act_min, p->act_max));
}

static int8_t squared_difference_s8_one(const struct tinyaot_squared_difference_s8_params *p,
					int32_t a, int32_t b)
{
	const int32_t sa = tinyaot_mbqm((a + p->input1_offset) * (1 << p->left_shift),
					p->input1_multiplier, p->input1_shift);
	const int32_t sb = tinyaot_mbqm((b + p->input2_offset) * (1 << p->left_shift),
					p->input2_multiplier, p->input2_shift);
	const int32_t d = sa - sb;
	const int32_t out =
		tinyaot_mbqm(d * d, p->output_multiplier, p->output_shift) + p->output_offset;

	return (int8_t)tinyaot_clamp_i32(out, -128, 127);
}

void tinyaot_squared_difference_s8(const struct tinyaot_squared_difference_s8_params *p,
				   const int8_t *input1, const int8_t *input2, int8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       squared_difference_s8_one(p, input1[c.offset1], input2[c.offset2]));
}

static float squared_difference_f32(float a, float b)
{
	const float d = a - b;

	return d * d;
}

void tinyaot_squared_difference_f32(const struct tinyaot_binary_params *p, const float *input1,
				    const float *input2, float *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       squared_difference_f32(input1[c.offset1], input2[c.offset2]));
}

static int32_t squared_difference_i32(int32_t a, int32_t b)
{
	const uint32_t d = (uint32_t)wrap_sub_i32(a, b);

	return (int32_t)(d * d);
}

void tinyaot_squared_difference_i32(const struct tinyaot_binary_params *p, const int32_t *input1,
				    const int32_t *input2, int32_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       squared_difference_i32(input1[c.offset1], input2[c.offset2]));
}

static int8_t prelu_s8_one(const struct tinyaot_prelu_s8_params *p, int32_t x, int32_t alpha)
{
	const int32_t v = x + p->input_offset;
	const int32_t out = v >= 0 ? tinyaot_mbqm(v, p->output_multiplier_1, p->output_shift_1)
				   : tinyaot_mbqm(v * (alpha + p->alpha_offset),
						  p->output_multiplier_2, p->output_shift_2);

	return (int8_t)tinyaot_clamp_i32(out + p->output_offset, -128, 127);
}

void tinyaot_prelu_s8(const struct tinyaot_prelu_s8_params *p, const int8_t *input,
		      const int8_t *alpha, int8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, prelu_s8_one(p, input[c.offset1], alpha[c.offset2]));
}

static float prelu_f32(float x, float alpha)
{
	return x >= 0.0f ? x : x * alpha;
}

void tinyaot_prelu_f32(const struct tinyaot_binary_params *p, const float *input,
		       const float *alpha, float *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, prelu_f32(input[c.offset1], alpha[c.offset2]));
}

/* std::floor without libm. From 2^52 up every double is an integer; NaN and the
 * infinities fail the range test and come back as they are.
 */
static double floor_f64(double x)
{
	if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) {
		return x;
	}
	const double t = (double)(int64_t)x;

	if (t == x) {
		return x; /* keeps the sign of a zero */
	}
	return t > x ? t - 1.0 : t;
}

/* TFLite's FloorDiv: the quotient in double, floored, stored as float. */
static float floor_div_f32(float a, float b)
{
	return (float)floor_f64((double)a / (double)b);
}

void tinyaot_floor_div_f32(const struct tinyaot_binary_params *p, const float *input1,
			   const float *input2, float *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, floor_div_f32(input1[c.offset1], input2[c.offset2]));
}

/* std::fmod without libm, exact as the standard requires: |x| is reduced by |y| * 2^k
 * for k from the largest that fits down to 0. Each step subtracts m from a value in
 * [m, 2m), which float does without rounding (Sterbenz), and doubling or halving m is
 * exact too.
 */
static float fmod_f32(float x, float y)
{
	float ax = x < 0.0f ? -x : x;
	const float ay = y < 0.0f ? -y : y;

	if (ay == 0.0f || ay != ay || ax - ax != 0.0f) {
		return (x * y) / (x * y); /* NaN, for a zero or NaN divisor or an infinite x */
	}
	if (ay - ay != 0.0f) {
		return x; /* an infinite divisor leaves x as it is */
	}
	float m = ay;

	while (m <= ax - m) {
		m += m;
	}
	while (m >= ay) {
		if (ax >= m) {
			ax -= m;
		}
		m *= 0.5f;
	}
	return x < 0.0f ? -ax : ax;
}

/* TFLite's FloorMod: the truncated remainder moved to the sign of the divisor. */
static float floor_mod_f32(float a, float b)
{
	const float r = fmod_f32(a, b);

	return r != 0.0f && ((b < 0.0f) != (r < 0.0f)) ? r + b : r;
}

void tinyaot_floor_mod_f32(const struct tinyaot_binary_params *p, const float *input1,
			   const float *input2, float *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, floor_mod_f32(input1[c.offset1], input2[c.offset2]));
}
