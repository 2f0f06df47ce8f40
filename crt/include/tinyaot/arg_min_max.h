/* ARG_MAX and ARG_MIN along one axis: int32 indices, the first one where values tie. */
#ifndef TINYAOT_ARG_MIN_MAX_H_
#define TINYAOT_ARG_MIN_MAX_H_

#include <stdint.h>

struct tinyaot_arg_min_max_params {
	int32_t outer; /* product of the dims ahead of the axis */
	int32_t axis_size;
	int32_t inner; /* product of the dims after it */
};

void tinyaot_arg_max_s8(const struct tinyaot_arg_min_max_params *p, const int8_t *input,
			int32_t *output);
void tinyaot_arg_min_s8(const struct tinyaot_arg_min_max_params *p, const int8_t *input,
			int32_t *output);
void tinyaot_arg_max_f32(const struct tinyaot_arg_min_max_params *p, const float *input,
			 int32_t *output);
void tinyaot_arg_min_f32(const struct tinyaot_arg_min_max_params *p, const float *input,
			 int32_t *output);

#endif /* TINYAOT_ARG_MIN_MAX_H_ */
