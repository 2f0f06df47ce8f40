/* Reference ARG_MAX and ARG_MIN (TFLM's ArgMinMax with its micro GreaterFn / LessFn): a
 * later value replaces the best so far only when strictly greater (smaller), so ties keep
 * the first index and a float NaN never wins after the first element.
 */
#include <tinyaot/arg_min_max.h>

/* Element i of an int8 or a float input, as a float: exact for every int8, so comparisons
 * come out as on the int8 values. */
static float value(const void *input, int32_t i, int32_t f32)
{
	return f32 ? ((const float *)input)[i] : (float)((const int8_t *)input)[i];
}

static void tinyaot_arg(const struct tinyaot_arg_min_max_params *p, const void *input,
			int32_t *output, int32_t f32, int32_t max)
{
	for (int32_t o = 0; o < p->outer; o++) {
		for (int32_t n = 0; n < p->inner; n++) {
			const int32_t first = o * p->axis_size * p->inner + n;
			float best = value(input, first, f32);
			int32_t index = 0;

			for (int32_t i = 1; i < p->axis_size; i++) {
				const float v = value(input, first + i * p->inner, f32);

				if (max ? v > best : v < best) {
					best = v;
					index = i;
				}
			}
			*output++ = index;
		}
	}
}

void tinyaot_arg_max_s8(const struct tinyaot_arg_min_max_params *p, const int8_t *input,
			int32_t *output)
{
	tinyaot_arg(p, input, output, 0, 1);
}

void tinyaot_arg_min_s8(const struct tinyaot_arg_min_max_params *p, const int8_t *input,
			int32_t *output)
{
	tinyaot_arg(p, input, output, 0, 0);
}

void tinyaot_arg_max_f32(const struct tinyaot_arg_min_max_params *p, const float *input,
			 int32_t *output)
{
	tinyaot_arg(p, input, output, 1, 1);
}

void tinyaot_arg_min_f32(const struct tinyaot_arg_min_max_params *p, const float *input,
			 int32_t *output)
{
	tinyaot_arg(p, input, output, 1, 0);
}
