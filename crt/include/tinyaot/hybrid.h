/* Hybrid float: float32 activations with int8 weights (symmetric, per tensor or per output
 * channel), as the TFLite converter makes them under dynamic-range quantisation. The
 * weights stay int8 in flash; each output sums input * weight in float and multiplies the
 * sum once by its channel's weight scale.
 */
#ifndef TINYAOT_HYBRID_H_
#define TINYAOT_HYBRID_H_

#include <stdint.h>
#include <tinyaot/batch_matmul.h>
#include <tinyaot/conv.h>

struct tinyaot_fc_hybrid_params {
	int32_t batches;
	int32_t depth;
	int32_t units;
	float act_min, act_max;
	const float *scale; /* one per unit */
};

struct tinyaot_conv_hybrid_params {
	struct tinyaot_conv_dims d;
	float act_min, act_max;
	const float *scale; /* one per output channel */
};

struct tinyaot_dwconv_hybrid_params {
	struct tinyaot_conv_dims d;
	int32_t depth_multiplier;
	float act_min, act_max;
	const float *scale; /* one per output channel */
};

/* The rhs is the int8 operand, of one scale. */
struct tinyaot_batch_matmul_hybrid_params {
	struct tinyaot_batch_matmul_dims d;
	float scale;
};

void tinyaot_fc_hybrid(const struct tinyaot_fc_hybrid_params *p, const float *input,
		       const int8_t *filter, const float *bias, float *output);

void tinyaot_conv_hybrid(const struct tinyaot_conv_hybrid_params *p, const float *input,
			 const int8_t *filter, const float *bias, float *output);

void tinyaot_dwconv_hybrid(const struct tinyaot_dwconv_hybrid_params *p, const float *input,
			   const int8_t *filter, const float *bias, float *output);

void tinyaot_batch_matmul_hybrid(const struct tinyaot_batch_matmul_hybrid_params *p,
				 const float *lhs, const int8_t *rhs, float *output);

#endif /* TINYAOT_HYBRID_H_ */
