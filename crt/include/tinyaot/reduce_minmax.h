/* REDUCE_MAX and REDUCE_MIN over the axes MEAN's layout describes (tinyaot/mean.h). */
#ifndef TINYAOT_REDUCE_MINMAX_H_
#define TINYAOT_REDUCE_MINMAX_H_

#include <stdint.h>
#include <tinyaot/mean.h>

struct tinyaot_reduce_minmax_params {
	struct tinyaot_mean_shape s;
};

/* int8 input and output share one quantisation (TFLM requires it), so no arithmetic. */
void tinyaot_reduce_max_s8(const struct tinyaot_reduce_minmax_params *p, const int8_t *input,
			   int8_t *output);
void tinyaot_reduce_min_s8(const struct tinyaot_reduce_minmax_params *p, const int8_t *input,
			   int8_t *output);
void tinyaot_reduce_max_f32(const struct tinyaot_reduce_minmax_params *p, const float *input,
			    float *output);
void tinyaot_reduce_min_f32(const struct tinyaot_reduce_minmax_params *p, const float *input,
			    float *output);

#endif /* TINYAOT_REDUCE_MINMAX_H_ */
