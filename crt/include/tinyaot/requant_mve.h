/*
 * tinyaot_requant (tinyaot/requant.h) on four int32 lanes with Helium, for the C kernels of
 * TINYAOT_MVE_KERNELS: lane by lane the same 64-bit sum, its upper word from VMULH, VMUL and the
 * carry of the lower words, the rounding word 2^30 or -2^30 by the sign of acc.
 */
#ifndef TINYAOT_REQUANT_MVE_H_
#define TINYAOT_REQUANT_MVE_H_

#include <arm_mve.h>

/* tinyaot_requant(acc, m, h, e) per lane, with neg_e = -e. */
static inline int32x4_t tinyaot_requant_mve(int32x4_t acc, int32x4_t m, int32x4_t h,
					    int32x4_t neg_e)
{
	const int32x4_t s = vshrq_n_s32(acc, 31);
	const uint32x4_t rl =
		vreinterpretq_u32_s32(veorq_s32(vdupq_n_s32(0x40000000), vshlq_n_s32(s, 31)));
	const uint32x4_t low = vreinterpretq_u32_s32(vmulq_s32(acc, m));
	const uint32x4_t sum = vaddq_u32(low, rl);
	int32x4_t upper = vaddq_s32(vaddq_s32(vmulhq_s32(acc, m), h), s);

	upper = vaddq_m_n_s32(upper, upper, 1, vcmphiq_u32(low, sum));
	return vshlq_s32(upper, neg_e);
}

#endif /* TINYAOT_REQUANT_MVE_H_ */
