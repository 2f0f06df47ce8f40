/* Broadcasting binary element-wise ops besides ADD and MUL: SUB, MAXIMUM, MINIMUM, DIV,
 * SQUARED_DIFFERENCE, PRELU, FLOOR_DIV, FLOOR_MOD. All walk their inputs with
 * tinyaot/broadcast.h.
 */
#ifndef TINYAOT_BINARY_H_
#define TINYAOT_BINARY_H_

#include <stdint.h>
#include <tinyaot/add.h>
#include <tinyaot/broadcast.h>

/* Ops without parameters of their own. */
struct tinyaot_binary_params {
	struct tinyaot_broadcast b;
};

/* Ops with a fused activation, as the clamp range of the output. */
struct tinyaot_binary_f32_params {
	struct tinyaot_broadcast b;
	float act_min, act_max;
};

struct tinyaot_binary_i32_params {
	struct tinyaot_broadcast b;
	int32_t act_min, act_max;
};

struct tinyaot_div_s8_params {
	struct tinyaot_broadcast b;
	int32_t input1_offset, input2_offset, output_offset;
	/* input1 scale / (input2 scale * output scale), as Q31 and shift */
	int32_t output_multiplier, output_shift;
	int32_t act_min, act_max;
};

struct tinyaot_squared_difference_s8_params {
	struct tinyaot_broadcast b;
	int32_t left_shift;
	int32_t input1_offset, input1_multiplier, input1_shift;
	int32_t input2_offset, input2_multiplier, input2_shift;
	int32_t output_offset, output_multiplier, output_shift;
};

struct tinyaot_prelu_s8_params {
	struct tinyaot_broadcast b;
	int32_t input_offset, alpha_offset, output_offset;
	/* input scale / output scale, for inputs at or above the zero point */
	int32_t output_multiplier_1, output_shift_1;
	/* input scale * alpha scale / output scale, for the others */
	int32_t output_multiplier_2, output_shift_2;
};

/* ADD and MUL on int32 wrap as two's complement; ADD's range is the whole of int32 whatever
 * the fused activation, as TFLite Micro's add.cc sets it.
 */
void tinyaot_add_i32(const struct tinyaot_binary_i32_params *p, const int32_t *input1,
		     const int32_t *input2, int32_t *output);
void tinyaot_mul_i32(const struct tinyaot_binary_i32_params *p, const int32_t *input1,
		     const int32_t *input2, int32_t *output);

/* SUB int8 and int16 share ADD's parameters: the same common scale, then a difference. */
void tinyaot_sub_s8(const struct tinyaot_add_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output);
void tinyaot_sub_s16(const struct tinyaot_add_s8_params *p, const int16_t *input1,
		     const int16_t *input2, int16_t *output);
void tinyaot_sub_f32(const struct tinyaot_binary_f32_params *p, const float *input1,
		     const float *input2, float *output);
void tinyaot_sub_i32(const struct tinyaot_binary_i32_params *p, const int32_t *input1,
		     const int32_t *input2, int32_t *output);

/* MAXIMUM and MINIMUM compare the stored values, int8 without rescaling, as TFLite Micro. */
void tinyaot_maximum_s8(const struct tinyaot_binary_params *p, const int8_t *input1,
			const int8_t *input2, int8_t *output);
void tinyaot_maximum_f32(const struct tinyaot_binary_params *p, const float *input1,
			 const float *input2, float *output);
void tinyaot_maximum_i32(const struct tinyaot_binary_params *p, const int32_t *input1,
			 const int32_t *input2, int32_t *output);
void tinyaot_minimum_s8(const struct tinyaot_binary_params *p, const int8_t *input1,
			const int8_t *input2, int8_t *output);
void tinyaot_minimum_f32(const struct tinyaot_binary_params *p, const float *input1,
			 const float *input2, float *output);
void tinyaot_minimum_i32(const struct tinyaot_binary_params *p, const int32_t *input1,
			 const int32_t *input2, int32_t *output);

void tinyaot_div_s8(const struct tinyaot_div_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output);
void tinyaot_div_f32(const struct tinyaot_binary_f32_params *p, const float *input1,
		     const float *input2, float *output);
void tinyaot_div_i32(const struct tinyaot_binary_i32_params *p, const int32_t *input1,
		     const int32_t *input2, int32_t *output);

void tinyaot_squared_difference_s8(const struct tinyaot_squared_difference_s8_params *p,
				   const int8_t *input1, const int8_t *input2, int8_t *output);
void tinyaot_squared_difference_f32(const struct tinyaot_binary_params *p, const float *input1,
				    const float *input2, float *output);
void tinyaot_squared_difference_i32(const struct tinyaot_binary_params *p, const int32_t *input1,
				    const int32_t *input2, int32_t *output);

void tinyaot_prelu_s8(const struct tinyaot_prelu_s8_params *p, const int8_t *input,
		      const int8_t *alpha, int8_t *output);
void tinyaot_prelu_f32(const struct tinyaot_binary_params *p, const float *input,
		       const float *alpha, float *output);

void tinyaot_floor_div_f32(const struct tinyaot_binary_params *p, const float *input1,
			   const float *input2, float *output);
void tinyaot_floor_mod_f32(const struct tinyaot_binary_params *p, const float *input1,
			   const float *input2, float *output);

#endif /* TINYAOT_BINARY_H_ */
