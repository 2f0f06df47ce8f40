/* Reference RESIZE_NEAREST_NEIGHBOR. TFLM computes each source index in float32 per
 * output pixel; those indices depend only on the shapes and flags, so the compiler
 * computed them with the same float32 steps and the kernel only copies.
 */
#include <string.h>

#include <tinyaot/resize_nearest_neighbor.h>

void tinyaot_resize_nearest_neighbor(const struct tinyaot_resize_nearest_neighbor_params *p,
				     const void *input, void *output)
{
	const uint8_t *image = (const uint8_t *)input;
	uint8_t *out = (uint8_t *)output;
	const size_t pixel = (size_t)p->pixel_bytes;

	for (int32_t b = 0; b < p->batches; b++) {
		for (int32_t y = 0; y < p->out_h; y++) {
			const uint8_t *row = image + p->rows[y];

			for (int32_t x = 0; x < p->out_w; x++) {
				memcpy(out, row + p->cols[x], pixel);
				out += pixel;
			}
		}
		image += p->image_bytes;
	}
}
