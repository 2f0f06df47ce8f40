/*
 * Requantisation of an int32 accumulator to int8 in six Cortex-M3 instructions, bit-exact with
 * tinyaot_mbqm() followed by the output offset, for per-channel parameters the compiler has
 * checked and rewritten (scripts/tinyaot/fast.py, requant_table):
 *
 *   tinyaot_rdbpot(tinyaot_srdhm(acc, m), e) + offset, for m >= 0 and a right shift e >= 2,
 *
 * equals hi32(acc * m + k) >> (e - 1) where k = 2^(30+e) + offset * 2^(31+e) + (acc >= 0 ?
 * 2^30 : -2^30) and hi32 is the upper word of the 64-bit sum. The two roundings of gemmlowp
 * (round half up in SaturatingRoundingDoublingHighMul, half away from zero in
 * RoundingDivideByPOT) merge into this single floor: both only depend on the sign of acc, so
 * the constant picks its sign once. The compiler stores h = 2^(e-2) + offset * 2^(e-1), the
 * upper word of the constant without the sign term, and checks that no sum can overflow.
 */
#ifndef TINYAOT_REQUANT_H_
#define TINYAOT_REQUANT_H_

#include <stdint.h>
#include <tinyaot/isa.h>

#if TINYAOT_ISA_SAT
#include <arm_acle.h>
#endif

/*
 * The fast kernels' tables hold per output channel, in this order: m; h = 2^(e-2) +
 * output_offset * 2^(e-1); e - 1; and, for the convolution and depthwise convolution, c of
 * tinyaot_requant_c. The kernels' assembly reads them by offset.
 */

static inline int32_t tinyaot_sat_s8(int32_t x)
{
#if TINYAOT_ISA_SAT
	return __ssat(x, 8);
#else
	return x < -128 ? -128 : (x > 127 ? 127 : x);
#endif
}

/* The output value before the activation clamp, offset included. */
static inline int32_t tinyaot_requant(int32_t acc, int32_t mult, int32_t high, int32_t shift)
{
	/* s = -1 for a negative accumulator, else 0; the low word of k is 2^30 or -2^30. */
	const uint32_t s = 0u - ((uint32_t)acc >> 31);
	const uint32_t lo = 0x40000000u ^ (s << 31);
	const uint64_t k = ((uint64_t)((uint32_t)high + s) << 32) | lo;
	const uint64_t x = k + (uint64_t)((int64_t)acc * mult);

	return (int32_t)(uint32_t)(x >> 32) >> shift;
}

/*
 * tinyaot_requant with the low word of the constant taken as c ^ s: for c = 0x40000000 it is
 * 2^30 or -2^30 - 1, for c = 0x3fffffff 2^30 - 1 or -2^30, one instruction (EOR) instead of
 * two. The compiler picks for each channel a c for which no accumulator in its range lands
 * on the one sum where that 1 would carry into the upper word (scripts/tinyaot/fast.py,
 * rounding_low_word).
 */
static inline int32_t tinyaot_requant_c(int32_t acc, int32_t mult, int32_t high, int32_t shift,
					int32_t c)
{
	const uint32_t s = 0u - ((uint32_t)acc >> 31);
	const uint32_t lo = (uint32_t)c ^ s;
	const uint64_t k = ((uint64_t)((uint32_t)high + s) << 32) | lo;
	const uint64_t x = k + (uint64_t)((int64_t)acc * mult);

	return (int32_t)(uint32_t)(x >> 32) >> shift;
}

/*
 * The requantisation of a channel whose steps lie on one line (scripts/tinyaot/fast.py,
 * line_entry): all of them under a ReLU with zero point -128, where the clamp hides the two
 * roundings' asymmetry around zero. The compiler adds b >= 0 to the bias so that the
 * accumulator acc is never negative; then the output, before SSAT, is the upper word of
 * h * 2^32 + acc * (m + 1) shifted right by TINYAOT_LINE_SHIFT: one SMLAL with acc as the low
 * word of the addend (SMLAL acc, h, acc, m), and the shift is SSAT's own. No sign test, no
 * rounding constant.
 */
#define TINYAOT_LINE_SHIFT 2

static inline int32_t tinyaot_requant_line(int32_t acc, int32_t m, int32_t h)
{
	const uint64_t x =
		((uint64_t)(uint32_t)h << 32) + (uint32_t)acc + (uint64_t)((int64_t)acc * m);

	return (int32_t)(uint32_t)(x >> 32) >> TINYAOT_LINE_SHIFT;
}

#endif /* TINYAOT_REQUANT_H_ */
