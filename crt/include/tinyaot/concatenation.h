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

/* The inputs follow the output, one pointer each, in model order (p->inputs_count of
 * them): their number differs from model to model, and a pointer array would have to
 * be built at run time because the arena can be the caller's.
 */
void tinyaot_concatenation_s8(const struct tinyaot_concatenation_params *p, int8_t *output, ...);
void tinyaot_concatenation_f32(const struct tinyaot_concatenation_params *p, float *output, ...);

#endif /* TINYAOT_CONCATENATION_H_ */
