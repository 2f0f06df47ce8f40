/* PAD and PADV2: a constant border around a tensor of up to 5 dimensions. */
#ifndef TINYAOT_PAD_H_
#define TINYAOT_PAD_H_

#include <stdint.h>

#define TINYAOT_PAD_MAX_DIMS 5

/* Dims are padded on the left with 1s to five, and the compiler merges every dim
 * that has no border into the one before it, so rows are as long as possible.
 */
struct tinyaot_pad_shape {
	int32_t in[TINYAOT_PAD_MAX_DIMS];
	int32_t out[TINYAOT_PAD_MAX_DIMS];
	int32_t before[TINYAOT_PAD_MAX_DIMS]; /* border elements ahead of the input */
};

struct tinyaot_pad_s8_params {
	struct tinyaot_pad_shape s;
	int32_t pad_value; /* the output zero point unless PADV2 gives one */
};

/* int16 pads with 0 whatever the zero point, or with PADV2's stored value as it stands: TFLite
 * Micro checks neither quantisation for int16.
 */
struct tinyaot_pad_s16_params {
	struct tinyaot_pad_shape s;
	int32_t pad_value;
};

struct tinyaot_pad_f32_params {
	struct tinyaot_pad_shape s;
	float pad_value;
};

void tinyaot_pad_s8(const struct tinyaot_pad_s8_params *p, const int8_t *input, int8_t *output);
void tinyaot_pad_s16(const struct tinyaot_pad_s16_params *p, const int16_t *input, int16_t *output);
void tinyaot_pad_f32(const struct tinyaot_pad_f32_params *p, const float *input, float *output);

#endif /* TINYAOT_PAD_H_ */
