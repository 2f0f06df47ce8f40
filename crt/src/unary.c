/* Float element-wise ops without libm. TFLite Micro calls std::tanh, std::exp, std::log,
 * std::sqrt and std::expm1; these approximations stay within a few ulp of them, keep their
 * infinities, zeros and NaNs, and never turn a finite result into NaN. The arithmetic ops
 * (HARD_SWISH, LEAKY_RELU, ABS, NEG) repeat the interpreter's float steps in its order, so
 * they are exact.
 */
#include <stdint.h>
#include <string.h>
#include <tinyaot/expf.h>
#include <tinyaot/unary.h>

#define F32_INF_BITS 0x7f800000u
#define F32_NAN_BITS 0x7fc00000u
/* The largest float whose exp is finite: exp(x) overflows above it. */
#define EXP_MAX_ARG  88.72283172607421875f

static float from_bits(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static uint32_t to_bits(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	return bits;
}

static int is_nan(float x)
{
	return x != x;
}

/* exp(x) for every float: tinyaot_expf stops at FLT_MAX a little before exp overflows. */
static float exp_full(float x)
{
	if (is_nan(x)) {
		return x;
	}
	if (x > EXP_MAX_ARG) {
		return from_bits(F32_INF_BITS);
	}
	if (x > 88.0f) {
		const float half = tinyaot_expf(0.5f * x);

		return half * half;
	}
	return tinyaot_expf(x);
}

/* 1/sqrt(x) for a positive, finite, normal x: the bit-level first guess and three Newton
 * steps (the relative error squares each step: 2e-3, 5e-6, 3e-11, then rounding).
 */
static float tinyaot_rsqrt_normal(float x)
{
	float y = from_bits(0x5f3759dfu - (to_bits(x) >> 1));

	for (int i = 0; i < 3; i++) {
		/* (x * y) * y: x * y * y in another order underflows for large x. */
		y = y * (1.5f - 0.5f * (x * y) * y);
	}
	return y;
}

/* 1/sqrt(x) for a positive finite x; subnormals scaled by 2^24 first. */
static float tinyaot_rsqrt_positive(float x)
{
	if (x < 1.17549435e-38f) {
		return tinyaot_rsqrt_normal(x * 16777216.0f) * 4096.0f;
	}
	return tinyaot_rsqrt_normal(x);
}

void tinyaot_tanh_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];
		const float a = x < 0.0f ? -x : x;
		float t;

		if (is_nan(x)) {
			t = x;
		} else if (a < 0.25f) {
			/* Taylor series: 1 - 2 / (e + 1) would lose digits to cancellation here. */
			const float x2 = x * x;
			float q = -1382.0f / 155925.0f;

			q = q * x2 + 62.0f / 2835.0f;
			q = q * x2 - 17.0f / 315.0f;
			q = q * x2 + 2.0f / 15.0f;
			q = q * x2 - 1.0f / 3.0f;
			t = x + x * x2 * q;
		} else {
			/* Past 9, 1 - tanh is below half an ulp of 1. */
			const float m =
				a > 9.0f ? 1.0f : 1.0f - 2.0f / (tinyaot_expf(2.0f * a) + 1.0f);

			t = x < 0.0f ? -m : m;
		}
		output[i] = t;
	}
}

void tinyaot_hard_swish_f32(const struct tinyaot_unary_f32_params *p, const float *input,
			    float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];
		const float shifted = x + 3.0f;
		/* std::max and std::min, comparisons in their order. */
		const float lo = 0.0f < shifted ? shifted : 0.0f;
		const float relu6 = lo < 6.0f ? lo : 6.0f;

		output[i] = x * relu6 / 6.0f;
	}
}

void tinyaot_leaky_relu_f32(const struct tinyaot_leaky_relu_f32_params *p, const float *input,
			    float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];

		output[i] = x > 0.0f ? x : x * p->alpha;
	}
}

void tinyaot_abs_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = from_bits(to_bits(input[i]) & 0x7fffffffu);
	}
}

void tinyaot_neg_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = -input[i];
	}
}

void tinyaot_elu_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];
		float y = x;

		if (x > -0.375f && x < 0.0f) {
			/* expm1 by its series: exp(x) - 1 cancels near zero. */
			float q = 1.0f / 362880.0f;

			q = q * x + 1.0f / 40320.0f;
			q = q * x + 1.0f / 5040.0f;
			q = q * x + 1.0f / 720.0f;
			q = q * x + 1.0f / 120.0f;
			q = q * x + 1.0f / 24.0f;
			q = q * x + 1.0f / 6.0f;
			q = q * x + 0.5f;
			y = x + x * x * q;
		} else if (x < 0.0f) {
			y = tinyaot_expf(x) - 1.0f;
		}
		output[i] = y;
	}
}

void tinyaot_sqrt_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];
		float y;

		if (x < 0.0f) {
			y = from_bits(F32_NAN_BITS);
		} else if (x == 0.0f || is_nan(x) || to_bits(x) == F32_INF_BITS) {
			/* sqrt(-0) is -0; NaN and +inf are their own roots. */
			y = x;
		} else {
			y = x * tinyaot_rsqrt_positive(x);
		}
		output[i] = y;
	}
}

void tinyaot_rsqrt_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];
		float y;

		if (x < 0.0f || is_nan(x)) {
			y = from_bits(F32_NAN_BITS);
		} else if (x == 0.0f) {
			/* 1 / sqrt(+-0) is an infinity of the zero's sign. */
			y = from_bits(F32_INF_BITS | (to_bits(x) & 0x80000000u));
		} else if (to_bits(x) == F32_INF_BITS) {
			y = 0.0f;
		} else {
			y = tinyaot_rsqrt_positive(x);
		}
		output[i] = y;
	}
}

void tinyaot_exp_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = exp_full(input[i]);
	}
}

/* log(x) for a positive, finite x: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), and
 * log(m) = 2 atanh(s), s = (m - 1) / (m + 1), by its series (|s| < 0.172, five terms).
 */
static float log_positive(float x)
{
	int32_t e = 0;

	if (x < 1.17549435e-38f) {
		x *= 8388608.0f;
		e = -23;
	}
	const uint32_t bits = to_bits(x);
	float m = from_bits((bits & 0x007fffffu) | 0x3f800000u);

	e += (int32_t)(bits >> 23) - 127;
	if (m > 1.41421356f) {
		m *= 0.5f;
		e++;
	}
	const float s = (m - 1.0f) / (m + 1.0f);
	const float s2 = s * s;
	float q = 1.0f / 9.0f;

	q = q * s2 + 1.0f / 7.0f;
	q = q * s2 + 1.0f / 5.0f;
	q = q * s2 + 1.0f / 3.0f;
	const float log_m = 2.0f * s + 2.0f * s * s2 * q;
	/* ln 2 in two parts; e times the first is exact. */
	const float fe = (float)e;

	return fe * 0.693145752f + (log_m + fe * 1.42860677e-06f);
}

void tinyaot_log_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];
		float y;

		if (x < 0.0f) {
			y = from_bits(F32_NAN_BITS);
		} else if (x == 0.0f) {
			y = -from_bits(F32_INF_BITS);
		} else if (is_nan(x) || to_bits(x) == F32_INF_BITS) {
			y = x;
		} else {
			y = log_positive(x);
		}
		output[i] = y;
	}
}

void tinyaot_square_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = input[i] * input[i];
	}
}

/* std::floor. From 2^23 up every float is an integer (and infinities and NaN are their own
 * floor); below, the int32 conversion truncates, one too high for negative fractions. A
 * zero result keeps the input's sign, as std::floor(-0.0) is -0.0.
 */
static float tinyaot_floorf(float x)
{
	if (!(x > -8388608.0f && x < 8388608.0f)) {
		return x;
	}
	float t = (float)(int32_t)x;

	if (t > x) {
		t -= 1.0f;
	}
	return t == 0.0f ? from_bits(to_bits(x) & 0x80000000u) : t;
}

void tinyaot_floor_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = tinyaot_floorf(input[i]);
	}
}

void tinyaot_ceil_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		/* ceil(x) = -floor(-x), signs of zeros included. */
		output[i] = -tinyaot_floorf(-input[i]);
	}
}

void tinyaot_round_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];
		const float f = tinyaot_floorf(x);
		const float diff = x - f;

		/* TFLite's RoundToNearest, tests in its order (so -0.3 rounds to +0.0). */
		if (diff < 0.5f || (diff == 0.5f && ((int32_t)f & 1) == 0)) {
			output[i] = f;
		} else {
			output[i] = f + 1.0f;
		}
	}
}

/* 2/pi in binary, 256 bits after the point, behind one word of zeros so that a window
 * may start before the point.
 */
static const uint32_t tinyaot_two_over_pi[9] = {0u,          0xa2f9836eu, 0x4e441529u,
						0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
						0x3c439041u, 0xfe5163abu, 0xdebbc561u};

/* Bits pos .. pos + 31 after the point of 2/pi (pos >= -31). */
static uint32_t tinyaot_two_over_pi_bits(int32_t pos)
{
	const int32_t p = pos + 31;
	const uint64_t pair =
		((uint64_t)tinyaot_two_over_pi[p >> 5] << 32) | tinyaot_two_over_pi[(p >> 5) + 1];

	return (uint32_t)((pair << (p & 31)) >> 32);
}

/* x = r + q pi/2 for a finite x >= pi/4, |r| <= pi/4: returns r, *q = q mod 4. Payne and
 * Hanek's reduction: x is m 2^e with an integer m < 2^24, so only the bits of 2/pi from
 * weight 2 down matter for x 2/pi mod 4, and 96 of them leave over 60 bits of r for any
 * float, however close to a multiple of pi/2.
 */
static float reduce_half_pi(float x, uint32_t *q)
{
	const uint32_t bits = to_bits(x);
	const uint32_t m = (bits & 0x007fffffu) | 0x00800000u;
	const int32_t e = (int32_t)(bits >> 23) - 150;
	/* x 2/pi mod 4 = m W 2^-94 mod 4, W the 96 bits of 2/pi from weight 2 (bit e - 1). */
	const uint32_t w[3] = {tinyaot_two_over_pi_bits(e - 1), tinyaot_two_over_pi_bits(e + 31),
			       tinyaot_two_over_pi_bits(e + 63)};
	uint32_t y[3];
	uint64_t carry = 0;

	for (int i = 2; i >= 0; i--) {
		const uint64_t prod = (uint64_t)m * w[i] + carry;

		y[i] = (uint32_t)prod;
		carry = prod >> 32;
	}
	/* Round to the nearest quadrant: y[0] holds weights 2^1 .. 2^-30. */
	*q = ((y[0] + 0x20000000u) >> 30) & 3u;
	y[0] -= *q << 30;
	const int negative = (y[0] & 0x80000000u) != 0u;

	if (negative) {
		/* The magnitude: the 96-bit two's complement. */
		y[2] = ~y[2] + 1u;
		y[1] = ~y[1] + (y[2] == 0u ? 1u : 0u);
		y[0] = ~y[0] + (y[1] == 0u && y[2] == 0u ? 1u : 0u);
	}
	/* The leading 32 bits of the magnitude, and the weight of their last one. */
	int32_t weight = -30;
	uint32_t top = y[0];

	for (int i = 1; i < 3 && top == 0u; i++) {
		top = y[i];
		weight -= 32;
	}
	uint32_t next = 0u;
	int32_t shift = 0;

	if (weight == -30) {
		next = y[1];
	} else if (weight == -62) {
		next = y[2];
	}
	while (top != 0u && (top & 0x80000000u) == 0u) {
		top <<= 1;
		shift++;
	}
	if (shift > 0) {
		top |= next >> (32 - shift);
	}
	weight -= shift;
	/* top 2^weight, scaled in two steps: 2^weight alone may not be a normal float. */
	const float r = (float)top * from_bits((uint32_t)(weight / 2 + 127) << 23) *
			from_bits((uint32_t)(weight - weight / 2 + 127) << 23) * 1.57079637f;

	return negative ? -r : r;
}

/* sin(r) and cos(r) for |r| <= pi/4 by their Taylor series (the next terms are below
 * 2e-9 relative).
 */
static float tinyaot_sin_poly(float r)
{
	const float r2 = r * r;
	float q = 1.0f / 362880.0f;

	q = q * r2 - 1.0f / 5040.0f;
	q = q * r2 + 1.0f / 120.0f;
	q = q * r2 - 1.0f / 6.0f;
	return r + r * r2 * q;
}

static float tinyaot_cos_poly(float r)
{
	const float r2 = r * r;
	float q = -1.0f / 3628800.0f;

	q = q * r2 + 1.0f / 40320.0f;
	q = q * r2 - 1.0f / 720.0f;
	q = q * r2 + 1.0f / 24.0f;
	q = q * r2 - 0.5f;
	return 1.0f + r2 * q;
}

/* sin(x) (phase 0) or cos(x) (phase 1): sin(x + phase pi/2). */
static float tinyaot_sin_phase(float x, uint32_t phase)
{
	if (is_nan(x)) {
		return x;
	}
	const float a = x < 0.0f ? -x : x;

	if (to_bits(a) == F32_INF_BITS) {
		return from_bits(F32_NAN_BITS);
	}
	uint32_t q = 0u;
	const float r = a < 0.785398163f ? a : reduce_half_pi(a, &q);
	/* sin(-x) = -sin(x): the quadrant of -x is the mirror of x's. */
	float y;

	q = (x < 0.0f && phase == 0u ? q + 2u : q) + phase;
	switch (q & 3u) {
	case 0u:
		y = tinyaot_sin_poly(r);
		break;
	case 1u:
		y = tinyaot_cos_poly(r);
		break;
	case 2u:
		y = -tinyaot_sin_poly(r);
		break;
	default:
		y = -tinyaot_cos_poly(r);
		break;
	}
	return y;
}

void tinyaot_sin_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = tinyaot_sin_phase(input[i], 0u);
	}
}

void tinyaot_cos_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = tinyaot_sin_phase(input[i], 1u);
	}
}

void tinyaot_logical_not_bool(const struct tinyaot_unary_bool_params *p, const uint8_t *input,
			      uint8_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = input[i] == 0u ? 1u : 0u;
	}
}
