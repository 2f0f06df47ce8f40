/* Table lookup for the 8-bit element-wise ops the compiler tabulates. */
#include <tinyaot/lut.h>

void tinyaot_lut8(const struct tinyaot_lut8_params *p, const void *input, void *output)
{
	const uint8_t *in = input;
	uint8_t *out = output;
	const uint8_t *table = p->table;
	/* A local count: through p, every byte store (which may alias p) reloads it. */
	const int32_t size = p->size;
	int32_t i = 0;

	/* Four reads before their four writes: the output starts at or before the input (the
	 * planner's forward gap), so a write lands only on bytes already read.
	 */
	for (; i + 4 <= size; i += 4) {
		const uint8_t a = in[i], b = in[i + 1], c = in[i + 2], d = in[i + 3];

		out[i] = table[a];
		out[i + 1] = table[b];
		out[i + 2] = table[c];
		out[i + 3] = table[d];
	}
	for (; i < size; i++) {
		out[i] = table[in[i]];
	}
}
