/* CONCATENATION along any axis of 2 to TINYAOT_CONCATENATION_MAX_INPUTS tensors. */
#ifndef TINYAOT_CONCATENATION_H_
#define TINYAOT_CONCATENATION_H_

#include <stdint.h>

/* TFLM's limit (kMaxInputNum): a model with more inputs does not run there either. */
#define TINYAOT_CONCATENATION_MAX_INPUTS 10

struct tinyaot_concatenation_params {
	int32_t outer; /* product of the output dims ahead of the axis */
	int32_t inputs_count;
	/* Bytes each input contributes per outer step: its axis size times the inner size. */
	int32_t copy_bytes[TINYAOT_CONCATENATION_MAX_INPUTS];
};

/* inputs: p->inputs_count pointers, in model order. */
void tinyaot_concatenation_s8(const struct tinyaot_concatenation_params *p,
			      const int8_t *const *inputs, int8_t *output);
void tinyaot_concatenation_f32(const struct tinyaot_concatenation_params *p,
			       const float *const *inputs, float *output);
void tinyaot_concatenation_s16(const struct tinyaot_concatenation_params *p,
			       const int16_t *const *inputs, int16_t *output);
void tinyaot_concatenation_i32(const struct tinyaot_concatenation_params *p,
			       const int32_t *const *inputs, int32_t *output);

#endif /* TINYAOT_CONCATENATION_H_ */
