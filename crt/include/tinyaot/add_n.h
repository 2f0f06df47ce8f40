/* ADD_N: the element-wise sum of count same-shaped tensors. */
#ifndef TINYAOT_ADD_N_H_
#define TINYAOT_ADD_N_H_

#include <stdint.h>
#include <tinyaot/q20_sum.h>

struct tinyaot_add_n_f32_params {
	int32_t size, count;
};

struct tinyaot_add_n_s8_params {
	int32_t size, count;
	struct tinyaot_q20_sum q;
};

void tinyaot_add_n_f32(const struct tinyaot_add_n_f32_params *p, const float *const *inputs,
		       float *output);
void tinyaot_add_n_s8(const struct tinyaot_add_n_s8_params *p, const int8_t *const *inputs,
		      int8_t *output);

#endif /* TINYAOT_ADD_N_H_ */
