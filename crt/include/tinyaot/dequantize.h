/* DEQUANTIZE: int8, uint8 or int16 to float32. */
#ifndef TINYAOT_DEQUANTIZE_H_
#define TINYAOT_DEQUANTIZE_H_

#include <stdint.h>

struct tinyaot_dequantize_params {
	int32_t size;
	int32_t zero_point;
	float scale;
	/* int8 and uint8: each byte's float, indexed by the byte as unsigned; or NULL: the
	 * product per element. The compiler gives it on cores without an FPU, where the product
	 * is a soft-float conversion and multiply of about 60 instructions an element.
	 */
	const float *table;
};

void tinyaot_dequantize_s8(const struct tinyaot_dequantize_params *p, const int8_t *input,
			   float *output);

void tinyaot_dequantize_u8(const struct tinyaot_dequantize_params *p, const uint8_t *input,
			   float *output);

void tinyaot_dequantize_s16(const struct tinyaot_dequantize_params *p, const int16_t *input,
			    float *output);

#endif /* TINYAOT_DEQUANTIZE_H_ */
