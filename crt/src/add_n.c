/* Reference ADD_N (TFLM's AddN). float32 adds the inputs in order onto 0. int8 keeps TFLM's
 * integer steps: each offset input shifted left by 20 and halved by its multiplier, the sum
 * started from the rescaled input offset (not zero, as TFLM does), then rescaled to the output
 * and clamped to int8. The sum wraps like TFLM's int32 on the targets rather than being
 * undefined.
 */
#include <tinyaot/add_n.h>
#include <tinyaot/fixedpoint.h>

void tinyaot_add_n_f32(const struct tinyaot_add_n_f32_params *p, const float *const *inputs,
		       float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		float sum = 0.0f;

		for (int32_t j = 0; j < p->count; j++) {
			sum += inputs[j][i];
		}
		output[i] = sum;
	}
}

void tinyaot_add_n_s8(const struct tinyaot_add_n_s8_params *p, const int8_t *const *inputs,
		      int8_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		uint32_t sum = (uint32_t)p->initial;

		for (int32_t j = 0; j < p->count; j++) {
			const int32_t v = (p->input_offset + inputs[j][i]) * (1 << 20);

			sum += (uint32_t)tinyaot_mbqm(v, p->input_multiplier, p->input_shift);
		}
		int32_t r = tinyaot_mbqm((int32_t)sum, p->output_multiplier, p->output_shift) +
			    p->output_offset;

		r = r < INT8_MIN ? INT8_MIN : r;
		output[i] = (int8_t)(r > INT8_MAX ? INT8_MAX : r);
	}
}
