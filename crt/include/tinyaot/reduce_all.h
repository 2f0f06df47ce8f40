/* REDUCE_ALL over the axes MEAN's layout describes (tinyaot/mean.h), on bool (uint8_t). */
#ifndef TINYAOT_REDUCE_ALL_H_
#define TINYAOT_REDUCE_ALL_H_

#include <stdint.h>
#include <tinyaot/mean.h>

struct tinyaot_reduce_all_params {
	struct tinyaot_mean_shape s;
};

void tinyaot_reduce_all(const struct tinyaot_reduce_all_params *p, const uint8_t *input,
			uint8_t *output);

#endif /* TINYAOT_REDUCE_ALL_H_ */
