/*
 * ADD int8 without broadcasting, fast path: each input's rescaled value,
 * MultiplyByQuantizedMultiplier((x - zero point) << 20, ...), depends only on its int8 value,
 * so the compiler tabulates both (256 int32 each, exactly as TFLite rounds); the kernel adds
 * two table entries and requantises the sum as tinyaot/requant.h. Elements go in order, one
 * read of each input before each write, like the reference kernel.
 */
#ifndef TINYAOT_ADD_FAST_H_
#define TINYAOT_ADD_FAST_H_

#include <stdint.h>
#include <tinyaot/requant.h>

struct tinyaot_add_fast_params {
	int32_t count;
	int32_t mult, high, shift; /* tinyaot_requant() of the sum */
	int32_t act_min, act_max;
	const int32_t *table1; /* indexed by input1 + 128 */
	const int32_t *table2; /* indexed by input2 + 128 */
};

void tinyaot_add_fast_s8(const struct tinyaot_add_fast_params *p, const int8_t *input1,
			 const int8_t *input2, int8_t *output);

#endif /* TINYAOT_ADD_FAST_H_ */
