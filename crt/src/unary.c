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
static float rsqrt_normal(float x)
{
	float y = from_bits(0x5f3759dfu - (to_bits(x) >> 1));

	for (int i = 0; i < 3; i++) {
		/* (x * y) * y: x * y * y in another order underflows for large x. */
		y = y * (1.5f - 0.5f * (x * y) * y);
	}
	return y;
}

/* 1/sqrt(x) for a positive finite x; subnormals scaled by 2^24 first. */
static float rsqrt_positive(float x)
{
	if (x < 1.17549435e-38f) {
		return rsqrt_normal(x * 16777216.0f) * 4096.0f;
	}
	return rsqrt_normal(x);
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
			y = x * rsqrt_positive(x);
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
			y = rsqrt_positive(x);
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
static float floor_f32(float x)
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
		output[i] = floor_f32(input[i]);
	}
}

void tinyaot_ceil_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		/* ceil(x) = -floor(-x), signs of zeros included. */
		output[i] = -floor_f32(-input[i]);
	}
}

void tinyaot_round_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float x = input[i];
		const float f = floor_f32(x);
		const float diff = x - f;

		/* TFLite's RoundToNearest, tests in its order (so -0.3 rounds to +0.0). */
		if (diff < 0.5f || (diff == 0.5f && ((int32_t)f & 1) == 0)) {
			output[i] = f;
		} else {
			output[i] = f + 1.0f;
		}
	}
}

void tinyaot_logical_not_bool(const struct tinyaot_unary_bool_params *p, const uint8_t *input,
			      uint8_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = input[i] == 0u ? 1u : 0u;
	}
}
