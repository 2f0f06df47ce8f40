/* Element-wise unary ops on float32 (and LOGICAL_NOT on bool), as TFLite Micro's reference
 * kernels compute them with std:: math functions. The int8 variants of these ops are
 * 256-entry tables (tinyaot/lut.h), so only the float ones need code.
 */
#ifndef TINYAOT_UNARY_H_
#define TINYAOT_UNARY_H_

#include <stdint.h>

struct tinyaot_unary_f32_params {
	int32_t size;
};

struct tinyaot_leaky_relu_f32_params {
	int32_t size;
	/* the slope below zero (any sign, any magnitude) */
	float alpha;
};

struct tinyaot_unary_bool_params {
	int32_t size;
};

/* Every function allows input and output to be the same buffer. */
void tinyaot_tanh_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_hard_swish_f32(const struct tinyaot_unary_f32_params *p, const float *input,
			    float *output);
void tinyaot_leaky_relu_f32(const struct tinyaot_leaky_relu_f32_params *p, const float *input,
			    float *output);
void tinyaot_abs_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_neg_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_elu_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_sqrt_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_rsqrt_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_exp_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_log_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_square_f32(const struct tinyaot_unary_f32_params *p, const float *input,
			float *output);
void tinyaot_floor_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_ceil_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
/* Halves to even, as TFLite's RoundToNearest. */
void tinyaot_round_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_sin_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
void tinyaot_cos_f32(const struct tinyaot_unary_f32_params *p, const float *input, float *output);
/* bool is one byte, 0 or 1, as TFLite stores it. */
void tinyaot_logical_not_bool(const struct tinyaot_unary_bool_params *p, const uint8_t *input,
			      uint8_t *output);

#endif /* TINYAOT_UNARY_H_ */
