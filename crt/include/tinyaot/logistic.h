/* LOGISTIC (sigmoid), and TANH on int16, which reads the sigmoid's table. */
#ifndef TINYAOT_LOGISTIC_H_
#define TINYAOT_LOGISTIC_H_

#include <stdint.h>

/* int16 LOGISTIC and TANH (zero points 0, output scale 1/32768): the input times
 * input_multiplier, shifted right with rounding by input_left_shift, gives TFLite's 3 x Q3.12
 * (+/-2^17 is +/-10.7) that the table interpolation reads.
 */
struct tinyaot_logistic_s16_params {
	int32_t size;
	int32_t input_multiplier, input_left_shift;
};

struct tinyaot_logistic_f32_params {
	int32_t size;
};

/* input and output may be the same buffer (both). */
void tinyaot_logistic_s16(const struct tinyaot_logistic_s16_params *p, const int16_t *input,
			  int16_t *output);
void tinyaot_tanh_s16(const struct tinyaot_logistic_s16_params *p, const int16_t *input,
		      int16_t *output);
void tinyaot_logistic_f32(const struct tinyaot_logistic_f32_params *p, const float *input,
			  float *output);

/* TFLite's int16 input scaling: the product rounded half up by the shift. */
static inline int32_t tinyaot_act16_input(int32_t v, int32_t multiplier, int32_t shift)
{
	const int32_t round = shift > 0 ? 1 << (shift - 1) : 0;

	return (v * multiplier + round) >> shift;
}

/* TFLite's table of 2^16 sigmoid(i / 24), which both functions below interpolate (the LSTM's
 * Helium gates read it four lanes at a time).
 */
extern const uint16_t tinyaot_sigmoid_table[256];

/* TFLite's int16 sigmoid and tanh of an input already scaled (tinyaot_act16_input): Q0.15. */
int16_t tinyaot_sigmoid16(int32_t x);
int16_t tinyaot_tanh16(int32_t x);

#endif /* TINYAOT_LOGISTIC_H_ */
