/* Ops on or to bool tensors (one byte, 0 or 1): the six comparisons, LOGICAL_AND,
 * LOGICAL_OR and SELECT_V2, broadcasting as tinyaot/broadcast.h.
 */
#ifndef TINYAOT_COMPARE_H_
#define TINYAOT_COMPARE_H_

#include <stdint.h>
#include <tinyaot/broadcast.h>

/* One kernel per input type serves all six comparisons: an element pair is classed as
 * less (bit 0), equal (bit 1), greater (bit 2) or unordered (bit 3, a NaN), and `truth`
 * holds the op's result for each class (LESS_EQUAL: 0x3, NOT_EQUAL: 0xd).
 */
struct tinyaot_compare_params {
	struct tinyaot_broadcast b;
	int32_t truth;
};

/* int8 inputs are compared on a common scale, as TFLite's ComparisonWithScaling. */
struct tinyaot_compare_s8_params {
	struct tinyaot_broadcast b;
	int32_t truth;
	int32_t left_shift;
	int32_t input1_offset, input1_multiplier, input1_shift;
	int32_t input2_offset, input2_multiplier, input2_shift;
};

struct tinyaot_logical_params {
	struct tinyaot_broadcast b;
};

/* SELECT_V2 copies whole elements of `size` bytes: it never looks at their type. */
struct tinyaot_select_params {
	int32_t shape[4];
	/* element strides of condition, x and y along each output dim; 0 where broadcast */
	int32_t stride_c[4], stride_x[4], stride_y[4];
	int32_t size;
};

void tinyaot_compare_s8(const struct tinyaot_compare_s8_params *p, const int8_t *input1,
			const int8_t *input2, uint8_t *output);
void tinyaot_compare_f32(const struct tinyaot_compare_params *p, const float *input1,
			 const float *input2, uint8_t *output);
void tinyaot_compare_i32(const struct tinyaot_compare_params *p, const int32_t *input1,
			 const int32_t *input2, uint8_t *output);
void tinyaot_compare_bool(const struct tinyaot_compare_params *p, const uint8_t *input1,
			  const uint8_t *input2, uint8_t *output);

void tinyaot_logical_and(const struct tinyaot_logical_params *p, const uint8_t *input1,
			 const uint8_t *input2, uint8_t *output);
void tinyaot_logical_or(const struct tinyaot_logical_params *p, const uint8_t *input1,
			const uint8_t *input2, uint8_t *output);

void tinyaot_select(const struct tinyaot_select_params *p, const uint8_t *condition, const void *x,
		    const void *y, void *output);

#endif /* TINYAOT_COMPARE_H_ */
