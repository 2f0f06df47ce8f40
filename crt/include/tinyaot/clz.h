/* Count leading zeros without compiler builtins (TFLM's CountLeadingZeros). */
#ifndef TINYAOT_CLZ_H_
#define TINYAOT_CLZ_H_

#include <stdint.h>

/* 32 for 0. */
static inline int32_t tinyaot_clz32(uint32_t x)
{
	int32_t n = 0;

	while (n < 32 && !(x & (0x80000000u >> n))) {
		n++;
	}
	return n;
}

#endif /* TINYAOT_CLZ_H_ */
