/* CUMSUM: running sums along one axis of an outer x depth x inner layout. */
#ifndef TINYAOT_CUMSUM_H_
#define TINYAOT_CUMSUM_H_

#include <stdint.h>
#include <tinyaot/q20_sum.h>

struct tinyaot_cumsum_f32_params {
	int32_t outer, depth, inner;
	int32_t exclusive; /* 1: each output leaves its own input out */
	int32_t reverse;   /* 1: sums run from the axis' end */
};

struct tinyaot_cumsum_s8_params {
	int32_t outer, depth, inner;
	int32_t exclusive, reverse;
	struct tinyaot_q20_sum q;
};

void tinyaot_cumsum_f32(const struct tinyaot_cumsum_f32_params *p, const float *input,
			float *output);
void tinyaot_cumsum_s8(const struct tinyaot_cumsum_s8_params *p, const int8_t *input,
		       int8_t *output);

#endif /* TINYAOT_CUMSUM_H_ */
