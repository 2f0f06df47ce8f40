/* Reference CONCATENATION: interleaved block copies. int8 inputs share the output's
 * scale and zero point (TFLM requires it), so no type needs arithmetic.
 */
#include <stdarg.h>
#include <string.h>

#include <tinyaot/concatenation.h>

static void concatenate(const struct tinyaot_concatenation_params *p, const uint8_t *const *inputs,
			uint8_t *out)
{
	for (int32_t k = 0; k < p->outer; k++) {
		for (int32_t i = 0; i < p->inputs_count; i++) {
			const size_t n = (size_t)p->copy_bytes[i];

			memcpy(out, inputs[i] + (size_t)k * n, n);
			out += n;
		}
	}
}

void tinyaot_concatenation_s8(const struct tinyaot_concatenation_params *p, int8_t *output, ...)
{
	const uint8_t *inputs[TINYAOT_CONCATENATION_MAX_INPUTS];
	va_list ap;

	va_start(ap, output);
	for (int32_t i = 0; i < p->inputs_count; i++) {
		inputs[i] = (const uint8_t *)va_arg(ap, const int8_t *);
	}
	va_end(ap);
	concatenate(p, inputs, (uint8_t *)output);
}

void tinyaot_concatenation_f32(const struct tinyaot_concatenation_params *p, float *output, ...)
{
	const uint8_t *inputs[TINYAOT_CONCATENATION_MAX_INPUTS];
	va_list ap;

	va_start(ap, output);
	for (int32_t i = 0; i < p->inputs_count; i++) {
		inputs[i] = (const uint8_t *)va_arg(ap, const float *);
	}
	va_end(ap);
	concatenate(p, inputs, (uint8_t *)output);
}
