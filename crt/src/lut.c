/* Table lookup for the 8-bit element-wise ops the compiler tabulates. */
#include <tinyaot/lut.h>

void tinyaot_lut8(const struct tinyaot_lut8_params *p, const void *input, void *output)
{
	const uint8_t *in = input;
	uint8_t *out = output;
	const uint8_t *table = p->table;

	for (int32_t i = 0; i < p->size; i++) {
		out[i] = table[in[i]];
	}
}
