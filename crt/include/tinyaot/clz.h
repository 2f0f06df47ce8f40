/* Count leading zeros (TFLM's CountLeadingZeros): the instruction where the core has it, else
 * a loop.
 */
#ifndef TINYAOT_CLZ_H_
#define TINYAOT_CLZ_H_

#include <stdint.h>
#include <tinyaot/isa.h>

/* 32 for 0. */
static inline int32_t tinyaot_clz32(uint32_t x)
{
#if TINYAOT_ISA_CLZ
	return x == 0 ? 32 : __builtin_clz(x);
#else
	int32_t n = 0;

	while (n < 32 && !(x & (0x80000000u >> n))) {
		n++;
	}
	return n;
#endif
}

#endif /* TINYAOT_CLZ_H_ */
