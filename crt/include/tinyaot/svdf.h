/* SVDF on int8 inputs and outputs, with an int16 (or int8) activation state and time weights
 * of the same type: TFLite Micro's EvalIntegerSvdfReference. float32: its
 * EvalFloatSvdfReference, and hybrid (float32 activations, int8 weights) the same sums. The
 * state is a variable tensor, kept in the model's state buffer and updated in place.
 */
#ifndef TINYAOT_SVDF_H_
#define TINYAOT_SVDF_H_

#include <stdint.h>

struct tinyaot_svdf_s8_params {
	int32_t batches;
	int32_t input_size;
	int32_t filters;
	int32_t rank;
	int32_t memory;
	/* Per filter: minus the input zero point times the sum of its feature weights. */
	const int32_t *feature_bias;
	int32_t output_zero_point;
	/* input * feature weights -> state, state * time weights -> output */
	int32_t mult1;
	int32_t shift1;
	int32_t mult2;
	int32_t shift2;
};

struct tinyaot_svdf_f32_params {
	int32_t batches;
	int32_t input_size;
	int32_t filters;
	int32_t rank;
	int32_t memory;
	float act_min, act_max;
};

/* Hybrid: symmetric int8 feature and time weights of one scale each. */
struct tinyaot_svdf_hybrid_params {
	struct tinyaot_svdf_f32_params f;
	float feature_scale;
	float time_scale;
};

void tinyaot_svdf_s8_s16(const struct tinyaot_svdf_s8_params *p, const int8_t *input,
			 const int8_t *weights_feature, const int16_t *weights_time,
			 const int32_t *bias, int16_t *state, int8_t *output);
void tinyaot_svdf_s8_s8(const struct tinyaot_svdf_s8_params *p, const int8_t *input,
			const int8_t *weights_feature, const int8_t *weights_time,
			const int32_t *bias, int8_t *state, int8_t *output);
void tinyaot_svdf_f32(const struct tinyaot_svdf_f32_params *p, const float *input,
		      const float *weights_feature, const float *weights_time, const float *bias,
		      float *state, float *output);
void tinyaot_svdf_hybrid(const struct tinyaot_svdf_hybrid_params *p, const float *input,
			 const int8_t *weights_feature, const int8_t *weights_time,
			 const float *bias, float *state, float *output);

#endif /* TINYAOT_SVDF_H_ */
