/* An element-wise op on 8-bit data (int8 or uint8, either side) as a table of its 256
 * results. The compiler evaluates the op with the interpreter's own arithmetic for every
 * possible input byte, so one lookup replaces a requantisation, an activation or a
 * fixed-point function per element, exactly.
 */
#ifndef TINYAOT_LUT_H_
#define TINYAOT_LUT_H_

#include <stdint.h>

struct tinyaot_lut8_params {
	int32_t size;
	/* table[b]: the output byte for the input byte b */
	const uint8_t *table;
};

/* input and output may be the same buffer. */
void tinyaot_lut8(const struct tinyaot_lut8_params *p, const void *input, void *output);

#endif /* TINYAOT_LUT_H_ */
