/* RESIZE_NEAREST_NEIGHBOR of any element type: a pixel copy from offsets the compiler chose. */
#ifndef TINYAOT_RESIZE_NEAREST_NEIGHBOR_H_
#define TINYAOT_RESIZE_NEAREST_NEIGHBOR_H_

#include <stdint.h>

struct tinyaot_resize_nearest_neighbor_params {
	int32_t batches, out_h, out_w;
	int32_t image_bytes; /* one input batch */
	int32_t pixel_bytes; /* depth times the element size */
	/* Byte offsets in an input image: of each output row's source row, and within a row
	 * of each output column's source pixel. */
	const int32_t *rows;
	const int32_t *cols;
};

void tinyaot_resize_nearest_neighbor(const struct tinyaot_resize_nearest_neighbor_params *p,
				     const void *input, void *output);

#endif /* TINYAOT_RESIZE_NEAREST_NEIGHBOR_H_ */
