/* DYNAMIC_UPDATE_SLICE for any element size: the operand copied, then the update's rows over
 * it at run-time start indices.
 */
#ifndef TINYAOT_DYNAMIC_UPDATE_SLICE_H_
#define TINYAOT_DYNAMIC_UPDATE_SLICE_H_

#include <stdint.h>

#define TINYAOT_DUS_MAX_RANK 6

struct tinyaot_dynamic_update_slice_params {
	int32_t rank;
	int32_t dims[TINYAOT_DUS_MAX_RANK];        /* the operand's (and output's) */
	int32_t update_dims[TINYAOT_DUS_MAX_RANK]; /* each at most the operand's */
	int32_t strides[TINYAOT_DUS_MAX_RANK];     /* the operand's, in elements */
	int32_t element_size;                      /* bytes */
	int32_t index64;                           /* 1: the start indices are int64 */
};

void tinyaot_dynamic_update_slice(const struct tinyaot_dynamic_update_slice_params *p,
				  const void *operand, const void *update, const void *start,
				  void *output);

#endif /* TINYAOT_DYNAMIC_UPDATE_SLICE_H_ */
