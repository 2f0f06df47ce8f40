/* QUANTIZE from float32 as TFLite's reference AffineQuantize. */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/quantize.h>

/* roundf() without libm for |x| <= 256: the fraction x - trunc(x) of a float is
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

void tinyaot_quantize_f32(const struct tinyaot_quantize_f32_params *p, const float *input,
			  int8_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		float q = input[i] / p->scale;

		/* Anything beyond +-256 saturates whatever the zero point; bounding it first
		 * keeps the conversion to int32 defined where TFLite's is not (beyond 2^31).
		 * NaN goes to the low end, as the interpreter gives on x86.
		 */
		if (!(q > -256.0f)) {
			q = -256.0f;
		} else if (q > 256.0f) {
			q = 256.0f;
		}
		output[i] = (int8_t)tinyaot_clamp_i32(round_half_away(q) + p->zero_point, INT8_MIN,
						      INT8_MAX);
	}
}
