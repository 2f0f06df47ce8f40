/* Reference DYNAMIC_UPDATE_SLICE (TFLM's): each start index clamped to [0, dim - update dim]
 * in int64, the operand copied to the output, then the update's innermost rows copied over it.
 * Bytes are copied whatever the dtype, as TFLM's memcpy does.
 */
#include <string.h>

#include <tinyaot/dynamic_update_slice.h>

void tinyaot_dynamic_update_slice(const struct tinyaot_dynamic_update_slice_params *p,
				  const void *operand, const void *update, const void *start,
				  void *output)
{
	const int32_t last = p->rank - 1;
	int32_t first[TINYAOT_DUS_MAX_RANK];
	int32_t size = 1, rows = 1;

	for (int32_t d = 0; d < p->rank; d++) {
		const int64_t raw = p->index64 ? ((const int64_t *)start)[d]
					       : (int64_t)((const int32_t *)start)[d];
		const int64_t hi = p->dims[d] - p->update_dims[d];

		first[d] = (int32_t)(raw < 0 ? 0 : raw > hi ? hi : raw);
		size *= p->dims[d];
		rows *= d < last ? p->update_dims[d] : 1;
	}
	memcpy(output, operand, (size_t)size * (size_t)p->element_size);
	const size_t row_bytes = (size_t)p->update_dims[last] * (size_t)p->element_size;

	for (int32_t r = 0; r < rows; r++) {
		int32_t offset = first[last], rest = r;

		for (int32_t d = last - 1; d >= 0; d--) {
			offset += (first[d] + rest % p->update_dims[d]) * p->strides[d];
			rest /= p->update_dims[d];
		}
		memcpy((uint8_t *)output + (size_t)offset * (size_t)p->element_size,
		       (const uint8_t *)update + (size_t)r * row_bytes, row_bytes);
	}
}
