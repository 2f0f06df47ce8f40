/*
 * Integer arithmetic of TFLite's reference kernels (gemmlowp semantics), shared by
 * every int8 kernel. Bit-exactness with TFLite Micro depends on every rounding
 * step here matching theirs.
 */
#ifndef TINYAOT_FIXEDPOINT_H_
#define TINYAOT_FIXEDPOINT_H_

#include <stdint.h>

static inline int32_t tinyaot_min_i32(int32_t a, int32_t b)
{
	return a < b ? a : b;
}

static inline int32_t tinyaot_max_i32(int32_t a, int32_t b)
{
	return a > b ? a : b;
}

static inline int32_t tinyaot_clamp_i32(int32_t x, int32_t lo, int32_t hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/* gemmlowp SaturatingRoundingDoublingHighMul: (ab + nudge) / 2^31 rounded toward zero, the
 * nudge 2^30 for ab >= 0 and 1 - 2^30 below. For ab < 0 that quotient is the floor of
 * (ab + 1 - 2^30 + 2^31 - 1) / 2^31, so in both cases it is (ab + 2^30) >> 31 (arithmetic): one
 * SMLAL and the shift, with no branch on the sign and no 64-bit division routine.
 */
static inline int32_t tinyaot_srdhm(int32_t a, int32_t b)
{
	if (a == INT32_MIN && b == INT32_MIN) {
		return INT32_MAX;
	}
	return (int32_t)(((int64_t)a * b + (1 << 30)) >> 31);
}

/* gemmlowp RoundingDivideByPOT: round half away from zero. */
static inline int32_t tinyaot_rdbpot(int32_t x, int32_t exponent)
{
	const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
	const int32_t remainder = x & mask;
	const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);

	return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* tflite::MultiplyByQuantizedMultiplier (double rounding, as TFLM builds it). The
 * left shift goes through uint32_t so that an overflow wraps as on the interpreter
 * instead of being undefined.
 */
static inline int32_t tinyaot_mbqm(int32_t x, int32_t multiplier, int32_t shift)
{
	const int32_t left = shift > 0 ? shift : 0;
	const int32_t right = shift > 0 ? 0 : -shift;

	return tinyaot_rdbpot(tinyaot_srdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

/* tflite::MultiplyByQuantizedMultiplier for the int64 accumulators of the int16x8 kernels:
 * the multiplier rounded to 16 bits and one rounding shift, as TFLite computes it for an
 * int64 argument whatever its rounding mode. x stays within 48 bits there, so the product
 * fits int64; >> on a negative value is the arithmetic shift of every supported compiler.
 */
static inline int32_t tinyaot_mbqm64(int64_t x, int32_t multiplier, int32_t shift)
{
	const int64_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
	const int32_t total_shift = 15 - shift;

	return (int32_t)((x * reduced + ((int64_t)1 << (total_shift - 1))) >> total_shift);
}

/* tinyaot_mbqm64 of an int32 x, its multiplier already rounded to 16 bits (m) and its total
 * shift t = 15 - shift, 1 to 31, both computed by the compiler: one SMLAL, then the int32 that
 * TFLite keeps is the low word of the 64-bit shift, the high word's bits shifted in.
 */
static inline int32_t tinyaot_mbqm64_pre(int32_t x, int32_t m, int32_t t)
{
	const uint64_t r = (uint64_t)((int64_t)x * m) + (1u << (t - 1));

	return (int32_t)((uint32_t)r >> t | (uint32_t)(r >> 32) << (32 - t));
}

#endif /* TINYAOT_FIXEDPOINT_H_ */
