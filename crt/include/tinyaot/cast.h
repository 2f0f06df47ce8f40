/* CAST between int8, int16, int32, float32 and bool (bool only as the input), as TFLite
 * Micro does it: integers narrow by keeping their low bits, floats truncate towards zero
 * and saturate to the output's range (NaN gives 0).
 */
#ifndef TINYAOT_CAST_H_
#define TINYAOT_CAST_H_

#include <stdint.h>

struct tinyaot_cast_params {
	int32_t size;
};

/* tinyaot_cast_<from>_<to>; bool is one byte, 0 or 1. Input and output may be the same
 * buffer when the output's elements are no larger than the input's.
 */
#define TINYAOT_CAST_DECLARE(from, from_t, to, to_t)                                               \
	void tinyaot_cast_##from##_##to(const struct tinyaot_cast_params *p, const from_t *input,  \
					to_t *output)
#define TINYAOT_CAST_DECLARE_TO_ALL(from, from_t)                                                  \
	TINYAOT_CAST_DECLARE(from, from_t, s8, int8_t);                                            \
	TINYAOT_CAST_DECLARE(from, from_t, s16, int16_t);                                          \
	TINYAOT_CAST_DECLARE(from, from_t, s32, int32_t);                                          \
	TINYAOT_CAST_DECLARE(from, from_t, f32, float)

TINYAOT_CAST_DECLARE_TO_ALL(s8, int8_t);
TINYAOT_CAST_DECLARE_TO_ALL(s16, int16_t);
TINYAOT_CAST_DECLARE_TO_ALL(s32, int32_t);
TINYAOT_CAST_DECLARE_TO_ALL(f32, float);
TINYAOT_CAST_DECLARE_TO_ALL(bool, uint8_t);

#endif /* TINYAOT_CAST_H_ */
