/*
 * Four int8 values in one word with the DSP extension, for the kernels that share it: products
 * (FULLY_CONNECTED's DSP loop, the LSTM's gates), where SXTB16 splits a word into bytes 0 and 2
 * and bytes 1 and 3 as halfwords and two SMLAD multiply-accumulate the four; maxima and minima
 * (MAX_POOL_2D), where SSUB8 sets a flag per byte and SEL picks by them. Only where
 * TINYAOT_ISA_DSP.
 */
#ifndef TINYAOT_DSP_SIMD_H_
#define TINYAOT_DSP_SIMD_H_

#include <stdint.h>
#include <string.h>

#include <tinyaot/isa.h>

#if TINYAOT_ISA_DSP
#include <arm_acle.h>

/* A word from any address: the DSP cores load unaligned words in one LDR. */
static inline uint32_t tinyaot_dsp_word(const int8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Bytes 1 and 3 of v, sign-extended to halfwords: one SXTB16 with its rotation, where GCC
 * would rotate first in an instruction of its own.
 */
static inline int32_t tinyaot_dsp_odd(uint32_t v)
{
	int32_t r;

	__asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
	return r;
}

/* acc plus the four products of the inputs (even bytes xe, odd bytes xo) and a weight word. */
static inline int32_t tinyaot_dsp_dot4(int32_t acc, int32_t xe, int32_t xo, uint32_t w)
{
	acc = __smlad(__sxtb16((int32_t)w), xe, acc);
	return __smlad(tinyaot_dsp_odd(w), xo, acc);
}

/* The bytewise maximum of a and b: SEL reads the flags SSUB8 sets, so one asm keeps the two
 * together.
 */
static inline uint32_t tinyaot_dsp_max4(uint32_t a, uint32_t b)
{
	uint32_t r;

	__asm__("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(a), "r"(b) : "cc");
	return r;
}

static inline uint32_t tinyaot_dsp_min4(uint32_t a, uint32_t b)
{
	uint32_t r;

	__asm__("ssub8 %0, %1, %2\n\tsel %0, %2, %1" : "=&r"(r) : "r"(a), "r"(b) : "cc");
	return r;
}
#endif

#endif /* TINYAOT_DSP_SIMD_H_ */
