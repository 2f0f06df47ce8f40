/* L2_POOL_2D over NHWC float32 tensors, with AVERAGE_POOL_2D's window (tinyaot/pooling.h). */
#ifndef TINYAOT_L2_POOL_H_
#define TINYAOT_L2_POOL_H_

#include <tinyaot/pooling.h>

void tinyaot_l2_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input,
			 float *output);

#endif /* TINYAOT_L2_POOL_H_ */
