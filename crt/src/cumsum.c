/* Reference CUMSUM (TFLM's CumSum). float32 sums from 0 in axis order (from its end when
 * reversed); int8 keeps TFLM's integer steps (tinyaot/q20_sum.h), each output the running sum
 * rescaled. The output never overlaps the input, so the order of the lines does not matter.
 */
#include <tinyaot/cumsum.h>

/* The index of a line's first sum: its first element along the axis, or its last if reversed. */
static int32_t tinyaot_cumsum_line_start(int32_t line, int32_t depth, int32_t inner,
					 int32_t reverse)
{
	const int32_t first = (line / inner) * depth * inner + line % inner;

	return reverse ? first + (depth - 1) * inner : first;
}

void tinyaot_cumsum_f32(const struct tinyaot_cumsum_f32_params *p, const float *input,
			float *output)
{
	const int32_t step = p->reverse ? -p->inner : p->inner;

	for (int32_t line = 0; line < p->outer * p->inner; line++) {
		const int32_t first =
			tinyaot_cumsum_line_start(line, p->depth, p->inner, p->reverse);
		float sum = 0.0f;

		for (int32_t k = 0, i = first; k < p->depth; k++, i += step) {
			const float v = input[i];

			if (p->exclusive) {
				output[i] = sum;
				sum += v;
			} else {
				sum += v;
				output[i] = sum;
			}
		}
	}
}

void tinyaot_cumsum_s8(const struct tinyaot_cumsum_s8_params *p, const int8_t *input,
		       int8_t *output)
{
	const int32_t step = p->reverse ? -p->inner : p->inner;

	for (int32_t line = 0; line < p->outer * p->inner; line++) {
		const int32_t first =
			tinyaot_cumsum_line_start(line, p->depth, p->inner, p->reverse);
		uint32_t sum = (uint32_t)p->q.initial;

		for (int32_t k = 0, i = first; k < p->depth; k++, i += step) {
			const uint32_t term = tinyaot_q20_term(&p->q, input[i]);
			const uint32_t shown = p->exclusive ? sum : sum + term;

			sum += term;
			output[i] = tinyaot_q20_output(&p->q, shown);
		}
	}
}
