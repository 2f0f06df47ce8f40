/* Reference CONCATENATION: interleaved block copies. int8 inputs share the output's
 * scale and zero point (TFLM requires it), and int16 is copied whatever its scales (as TFLM
 * copies it), so no type needs arithmetic.
 */
#include <string.h>

#include <tinyaot/concatenation.h>

static void tinyaot_concatenate(const struct tinyaot_concatenation_params *p,
				const uint8_t *const *inputs, uint8_t *out)
{
	for (int32_t k = 0; k < p->outer; k++) {
		for (int32_t i = 0; i < p->inputs_count; i++) {
			const size_t n = (size_t)p->copy_bytes[i];

			memcpy(out, inputs[i] + (size_t)k * n, n);
			out += n;
		}
	}
}

void tinyaot_concatenation_s8(const struct tinyaot_concatenation_params *p,
			      const int8_t *const *inputs, int8_t *output)
{
	const uint8_t *bytes[TINYAOT_CONCATENATION_MAX_INPUTS];

	for (int32_t i = 0; i < p->inputs_count; i++) {
		bytes[i] = (const uint8_t *)inputs[i];
	}
	tinyaot_concatenate(p, bytes, (uint8_t *)output);
}

void tinyaot_concatenation_f32(const struct tinyaot_concatenation_params *p,
			       const float *const *inputs, float *output)
{
	const uint8_t *bytes[TINYAOT_CONCATENATION_MAX_INPUTS];

	for (int32_t i = 0; i < p->inputs_count; i++) {
		bytes[i] = (const uint8_t *)inputs[i];
	}
	tinyaot_concatenate(p, bytes, (uint8_t *)output);
}

void tinyaot_concatenation_i32(const struct tinyaot_concatenation_params *p,
			       const int32_t *const *inputs, int32_t *output)
{
	const uint8_t *bytes[TINYAOT_CONCATENATION_MAX_INPUTS];

	for (int32_t i = 0; i < p->inputs_count; i++) {
		bytes[i] = (const uint8_t *)inputs[i];
	}
	tinyaot_concatenate(p, bytes, (uint8_t *)output);
}

void tinyaot_concatenation_s16(const struct tinyaot_concatenation_params *p,
			       const int16_t *const *inputs, int16_t *output)
{
	const uint8_t *bytes[TINYAOT_CONCATENATION_MAX_INPUTS];

	for (int32_t i = 0; i < p->inputs_count; i++) {
		bytes[i] = (const uint8_t *)inputs[i];
	}
	tinyaot_concatenate(p, bytes, (uint8_t *)output);
}
