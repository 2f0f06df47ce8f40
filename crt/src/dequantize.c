/* DEQUANTIZE. TFLite multiplies in double and rounds to float once; the float
 * product below rounds the same exact value (24 by 9 bits) once, so it gives the
 * same bits without double arithmetic, which Cortex-M cores lack. For int16 the exact
 * product has 24 by 17 bits, still exact in double, so one rounding either way too.
 */
#include <stddef.h>
#include <tinyaot/dequantize.h>

/* The table's float for every element: the product it holds was rounded the same way. */
static void tinyaot_dequantize_table(const float *table, const uint8_t *input, float *output,
				     int32_t size)
{
	for (int32_t i = 0; i < size; i++) {
		output[i] = table[input[i]];
	}
}

void tinyaot_dequantize_s8(const struct tinyaot_dequantize_params *p, const int8_t *input,
			   float *output)
{
	if (p->table != NULL) {
		tinyaot_dequantize_table(p->table, (const uint8_t *)input, output, p->size);
		return;
	}
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = p->scale * (float)(input[i] - p->zero_point);
	}
}

void tinyaot_dequantize_u8(const struct tinyaot_dequantize_params *p, const uint8_t *input,
			   float *output)
{
	if (p->table != NULL) {
		tinyaot_dequantize_table(p->table, input, output, p->size);
		return;
	}
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = p->scale * (float)(input[i] - p->zero_point);
	}
}

void tinyaot_dequantize_s16(const struct tinyaot_dequantize_params *p, const int16_t *input,
			    float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = p->scale * (float)(input[i] - p->zero_point);
	}
}
