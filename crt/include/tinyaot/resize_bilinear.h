/* RESIZE_BILINEAR from taps the compiler computed: for each output row and column, the two
 * input offsets it blends and the weight of the second.
 */
#ifndef TINYAOT_RESIZE_BILINEAR_H_
#define TINYAOT_RESIZE_BILINEAR_H_

#include <stdint.h>

struct tinyaot_resize_bilinear_s8_params {
	int32_t batches, out_h, out_w, depth;
	int32_t image; /* elements of one input batch */
	/* Per output row: the two source rows' offsets in elements, then the weight of the
	 * second in 1/1024 (negative or above 1024 where half_pixel_centers reaches past an
	 * edge). Per output column the same, within a row. */
	const int32_t *rows;
	const int32_t *cols;
};

struct tinyaot_resize_bilinear_f32_params {
	int32_t batches, out_h, out_w, depth;
	int32_t image;
	/* Per output row, per column: the two source offsets in elements. */
	const int32_t *rows;
	const int32_t *cols;
	/* Per output row, per column: the source position minus the first source index. */
	const float *fy;
	const float *fx;
};

void tinyaot_resize_bilinear_s8(const struct tinyaot_resize_bilinear_s8_params *p,
				const int8_t *input, int8_t *output);
void tinyaot_resize_bilinear_f32(const struct tinyaot_resize_bilinear_f32_params *p,
				 const float *input, float *output);

#endif /* TINYAOT_RESIZE_BILINEAR_H_ */
