/* Reference ADD_N (TFLM's AddN). float32 adds the inputs in order onto 0; int8 keeps TFLM's
 * integer steps (tinyaot/q20_sum.h).
 */
#include <tinyaot/add_n.h>

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
		uint32_t sum = (uint32_t)p->q.initial;

		for (int32_t j = 0; j < p->count; j++) {
			sum += tinyaot_q20_term(&p->q, inputs[j][i]);
		}
		output[i] = tinyaot_q20_output(&p->q, sum);
	}
}
