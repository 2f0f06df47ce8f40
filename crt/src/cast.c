/* CAST. Every input is read as an int32 (or kept as a float for a float output), then
 * narrowed: integers keep their low bits, floats saturate to the output's range (NaN gives
 * 0), as TFLite Micro's CAST does. C leaves out-of-range float conversions undefined.
 */
#include <tinyaot/cast.h>

/* x truncated towards zero and saturated to [lo, hi]; NaN gives 0. */
static int32_t float_to_int(float x, int32_t lo, int32_t hi)
{
	if (x != x) {
		return 0;
	}
	/* (float)hi + 1 and (float)lo - 1 are exact for 8 and 16 bits; for 32 they round to
	 * +-2^31, where x >= 2^31 saturates and x = -2^31 converts exactly.
	 */
	if (x >= (float)hi + 1.0f) {
		return hi;
	}
	if (x <= (float)lo - 1.0f) {
		return lo;
	}
	return (int32_t)x;
}

/* The low 8 or 16 bits as a signed value, without an implementation-defined conversion. */
static int8_t low_s8(int32_t v)
{
	return (int8_t)((int32_t)(((uint32_t)v & 0xffu) ^ 0x80u) - 0x80);
}

static int16_t low_s16(int32_t v)
{
	return (int16_t)((int32_t)(((uint32_t)v & 0xffffu) ^ 0x8000u) - 0x8000);
}

#define AS_INT(x)    ((int32_t)(x))
#define AS_FLOAT(x)  ((float)(x))
#define FROM_BOOL(x) ((int32_t)((x) != 0u))

#define CAST(from, from_t, to, to_t, expr)                                                         \
	TINYAOT_CAST_DECLARE(from, from_t, to, to_t)                                               \
	{                                                                                          \
		for (int32_t i = 0; i < p->size; i++) {                                            \
			const from_t x = input[i];                                                 \
                                                                                                   \
			output[i] = expr;                                                          \
		}                                                                                  \
	}

/* read: the integer input element as an int32; as_float: as a float. */
#define CAST_INT_TO_ALL(from, from_t, read, as_float)                                              \
	CAST(from, from_t, s8, int8_t, low_s8(read(x)))                                            \
	CAST(from, from_t, s16, int16_t, low_s16(read(x)))                                         \
	CAST(from, from_t, s32, int32_t, read(x))                                                  \
	CAST(from, from_t, f32, float, as_float(x))

CAST_INT_TO_ALL(s8, int8_t, AS_INT, AS_FLOAT)
CAST_INT_TO_ALL(s16, int16_t, AS_INT, AS_FLOAT)
CAST_INT_TO_ALL(s32, int32_t, AS_INT, AS_FLOAT)
CAST_INT_TO_ALL(bool, uint8_t, FROM_BOOL, (float)FROM_BOOL)
CAST(f32, float, s8, int8_t, (int8_t)float_to_int(x, INT8_MIN, INT8_MAX))
CAST(f32, float, s16, int16_t, (int16_t)float_to_int(x, INT16_MIN, INT16_MAX))
CAST(f32, float, s32, int32_t, float_to_int(x, INT32_MIN, INT32_MAX))
CAST(f32, float, f32, float, x)
