/* The int8 sums of ADD_N and CUMSUM as TFLite Micro computes them: each offset input shifted
 * left by 20 and halved by its multiplier, summed in int32, the sum rescaled to the output.
 */
#ifndef TINYAOT_Q20_SUM_H_
#define TINYAOT_Q20_SUM_H_

#include <stdint.h>
#include <tinyaot/fixedpoint.h>

struct tinyaot_q20_sum {
	int32_t input_offset;
	int32_t initial; /* a sum's starting value: the rescaled input offset, as TFLM has it */
	int32_t input_multiplier, input_shift;
	int32_t output_multiplier, output_shift;
	int32_t output_offset;
};

/* One input's term; a sum of them wraps like TFLM's int32 on the targets. */
static inline uint32_t tinyaot_q20_term(const struct tinyaot_q20_sum *q, int8_t v)
{
	const int32_t shifted = (q->input_offset + v) * (1 << 20);

	return (uint32_t)tinyaot_mbqm(shifted, q->input_multiplier, q->input_shift);
}

/* A sum rescaled to the output and clamped to int8. */
static inline int8_t tinyaot_q20_output(const struct tinyaot_q20_sum *q, uint32_t sum)
{
	const int32_t r = tinyaot_mbqm((int32_t)sum, q->output_multiplier, q->output_shift) +
			  q->output_offset;

	return (int8_t)(r < INT8_MIN ? INT8_MIN : r > INT8_MAX ? INT8_MAX : r);
}

#endif /* TINYAOT_Q20_SUM_H_ */
