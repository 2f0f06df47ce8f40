/* DEQUANTIZE: int8, uint8 or int16 to float32. */
#ifndef TINYAOT_DEQUANTIZE_H_
#define TINYAOT_DEQUANTIZE_H_

#include <stdint.h>

struct tinyaot_dequantize_params {
	int32_t size;
	int32_t zero_point;
	float scale;
};

void tinyaot_dequantize_s8(const struct tinyaot_dequantize_params *p, const int8_t *input,
			   float *output);

void tinyaot_dequantize_u8(const struct tinyaot_dequantize_params *p, const uint8_t *input,
			   float *output);

void tinyaot_dequantize_s16(const struct tinyaot_dequantize_params *p, const int16_t *input,
			    float *output);

#endif /* TINYAOT_DEQUANTIZE_H_ */
