/*
 * Products of four int8 values in one word with the DSP extension, shared by the kernels that
 * take them (FULLY_CONNECTED's DSP loop, the LSTM's gates): SXTB16 splits a word into bytes 0
 * and 2 and bytes 1 and 3 as halfwords, and two SMLAD multiply-accumulate the four. Only where
 * TINYAOT_ISA_DSP.
 */
#ifndef TINYAOT_DOT_DSP_H_
#define TINYAOT_DOT_DSP_H_

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
#endif

#endif /* TINYAOT_DOT_DSP_H_ */
