/* QUANTIZE from float32 as TFLite's reference AffineQuantize, and between integer types as
 * its Requantize.
 */
#include <string.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/quantize.h>

/* roundf() without libm for |x| <= 65536: the fraction x - trunc(x) of a float is
 * exact, so comparing it with one half rounds halves away from zero as roundf does.
 */
static int32_t round_half_away(float x)
{
	const int32_t t = (int32_t)x;
	const float frac = x - (float)t;

	if (frac >= 0.5f) {
		return t + 1;
	}
	if (frac <= -0.5f) {
		return t - 1;
	}
	return t;
}

/* round(x / scale) before the zero point. Anything beyond +-bound saturates whatever the
 * zero point; bounding it first keeps the conversion to int32 defined where TFLite's is not
 * (beyond 2^31). NaN goes to the low end, as the interpreter gives on x86.
 */
static int32_t tinyaot_quantize_round(float x, float scale, float bound)
{
	float q = x / scale;

	if (!(q > -bound)) {
		q = -bound;
	} else if (q > bound) {
		q = bound;
	}
	return round_half_away(q);
}

/* The output of one input by the keys (tinyaot/quantize.h). */
static int8_t tinyaot_quantize_by_keys(const int32_t *keys, float x)
{
	uint32_t bits;

	memcpy(&bits, &x, sizeof(bits));
	int32_t key = (int32_t)(bits ^ ((uint32_t)((int32_t)bits >> 31) >> 1));
	const int32_t *k = keys;

	/* A positive NaN lies above +infinity in this order. */
	if (key > 0x7f800000) {
		key = INT32_MIN;
	}
	/* Unrolled: as a loop, its counter and step cost as much as the comparisons. A pointer
	 * that moves is a load, a compare and a conditional add a step (Thumb-2: LDR, CMP, IT,
	 * ADD), where an index also costs its address and a select.
	 */
	if (key >= k[128]) {
		k += 128;
	}
	if (key >= k[64]) {
		k += 64;
	}
	if (key >= k[32]) {
		k += 32;
	}
	if (key >= k[16]) {
		k += 16;
	}
	if (key >= k[8]) {
		k += 8;
	}
	if (key >= k[4]) {
		k += 4;
	}
	if (key >= k[2]) {
		k += 2;
	}
	if (key >= k[1]) {
		k += 1;
	}
	return (int8_t)(k - keys - 128);
}

void tinyaot_quantize_f32(const struct tinyaot_quantize_f32_params *p, const float *input,
			  int8_t *output)
{
	if (p->keys != NULL) {
		/* Locals: a store through output could otherwise alias p, forcing reloads. */
		const int32_t *const keys = p->keys;
		const int32_t size = p->size;

		for (int32_t i = 0; i < size; i++) {
			output[i] = tinyaot_quantize_by_keys(keys, input[i]);
		}
		return;
	}
	for (int32_t i = 0; i < p->size; i++) {
		const int32_t q = tinyaot_quantize_round(input[i], p->scale, 256.0f);

		output[i] = (int8_t)tinyaot_clamp_i32(q + p->zero_point, INT8_MIN, INT8_MAX);
	}
}

void tinyaot_quantize_f32_s16(const struct tinyaot_quantize_f32_params *p, const float *input,
			      int16_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const int32_t q = tinyaot_quantize_round(input[i], p->scale, 65536.0f);

		output[i] = (int16_t)tinyaot_clamp_i32(q + p->zero_point, INT16_MIN, INT16_MAX);
	}
}

/* int32 in and out wrap on the offsets where TFLite's int32 arithmetic would overflow. */
static int32_t tinyaot_requantize_one(const struct tinyaot_requantize_params *p, int32_t x)
{
	const int32_t centred = (int32_t)((uint32_t)x - (uint32_t)p->input_zero_point);
	const int32_t scaled = tinyaot_mbqm(centred, p->multiplier, p->shift);

	return (int32_t)((uint32_t)scaled + (uint32_t)p->output_zero_point);
}

#define TINYAOT_REQUANTIZE(name, in_t, out_t, lo, hi)                                              \
	void name(const struct tinyaot_requantize_params *p, const in_t *input, out_t *output)     \
	{                                                                                          \
		for (int32_t i = 0; i < p->size; i++) {                                            \
			output[i] = (out_t)tinyaot_clamp_i32(tinyaot_requantize_one(p, input[i]),  \
							     lo, hi);                              \
		}                                                                                  \
	}

TINYAOT_REQUANTIZE(tinyaot_requantize_s8_s16, int8_t, int16_t, INT16_MIN, INT16_MAX)
TINYAOT_REQUANTIZE(tinyaot_requantize_s16_s8, int16_t, int8_t, INT8_MIN, INT8_MAX)
TINYAOT_REQUANTIZE(tinyaot_requantize_s16_s16, int16_t, int16_t, INT16_MIN, INT16_MAX)
TINYAOT_REQUANTIZE(tinyaot_requantize_s16_i32, int16_t, int32_t, INT32_MIN, INT32_MAX)
TINYAOT_REQUANTIZE(tinyaot_requantize_i32_s16, int32_t, int16_t, INT16_MIN, INT16_MAX)
