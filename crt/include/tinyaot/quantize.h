/* QUANTIZE: float32 to int8 or int16, and requantisation between int8, int16 and int32.
 * (8-bit to 8-bit requantisation is a table: lut.h.)
 */
#ifndef TINYAOT_QUANTIZE_H_
#define TINYAOT_QUANTIZE_H_

#include <stdint.h>

/*
 * float32 to int8 or int16: round(input / scale) + zero point, saturated. The kernel divides by
 * the scale, as TFLite does: multiplying by its reciprocal would round differently.
 *
 * For int8, where the compiler gives keys (on cores without an FPU, where a division in
 * software costs some 300 instructions), by comparisons alone instead. The int8 result is a
 * non-decreasing function of the input: the compiler finds, for each output value -128 + k
 * (k = 1 to 255), the least input that gives it or more, and stores it as a key, an int32 in the
 * order of the floats (their bits, the lower 31 flipped when negative); keys[0] is INT32_MIN,
 * and a value no input reaches INT32_MAX. The output is then -128 + the number of keys[1..255]
 * at or below the input's key, found by bisection; NaN gives -128 as the division does.
 */
struct tinyaot_quantize_f32_params {
	int32_t size;
	float scale;
	int32_t zero_point;
	const int32_t *keys; /* 256, or NULL: the division */
};

void tinyaot_quantize_f32(const struct tinyaot_quantize_f32_params *p, const float *input,
			  int8_t *output);
void tinyaot_quantize_f32_s16(const struct tinyaot_quantize_f32_params *p, const float *input,
			      int16_t *output);

/* (input - input zero point) times input scale / output scale, as a Q31 multiplier and a
 * shift, plus the output zero point, saturated to the output type.
 */
struct tinyaot_requantize_params {
	int32_t size;
	int32_t input_zero_point, output_zero_point;
	int32_t multiplier, shift;
};

void tinyaot_requantize_s8_s16(const struct tinyaot_requantize_params *p, const int8_t *input,
			       int16_t *output);
void tinyaot_requantize_s16_s8(const struct tinyaot_requantize_params *p, const int16_t *input,
			       int8_t *output);
void tinyaot_requantize_s16_s16(const struct tinyaot_requantize_params *p, const int16_t *input,
				int16_t *output);
void tinyaot_requantize_s16_i32(const struct tinyaot_requantize_params *p, const int16_t *input,
				int32_t *output);
void tinyaot_requantize_i32_s16(const struct tinyaot_requantize_params *p, const int32_t *input,
				int16_t *output);

#endif /* TINYAOT_QUANTIZE_H_ */
