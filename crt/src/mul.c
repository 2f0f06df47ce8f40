/* Reference MUL. Unlike ADD there is no common scale to reach first: the product of
 * the offset inputs (at most 255 * 255; int16, without offsets, at most 2^30) is
 * requantised once, from scale1 * scale2 to the output scale.
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/mul.h>
#include <tinyaot/requant.h>

static int32_t tinyaot_mul_one(const struct tinyaot_mul_s8_params *p, int32_t a, int32_t b)
{
	const int32_t prod = (a + p->input1_offset) * (b + p->input2_offset);
	const int32_t out =
		tinyaot_mbqm(prod, p->output_multiplier, p->output_shift) + p->output_offset;

	return tinyaot_clamp_i32(out, p->act_min, p->act_max);
}

void tinyaot_mul_s8(const struct tinyaot_mul_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       (int8_t)tinyaot_mul_one(p, input1[c.offset1], input2[c.offset2]));
}

void tinyaot_mul_fast_s8(const struct tinyaot_mul_fast_params *p, const int8_t *input1,
			 const int8_t *input2, int8_t *output)
{
	/* Read once: the stores could alias the parameters as far as C knows. */
	const int32_t o1 = p->input1_offset, o2 = p->input2_offset;
	const int32_t m = p->mult, h = p->high, e = p->shift;
	const int32_t lo = p->act_min, hi = p->act_max;

	TINYAOT_BROADCAST_EACH(
		&p->b, output,
		(int8_t)tinyaot_clamp_i32(
			tinyaot_requant((input1[c.offset1] + o1) * (input2[c.offset2] + o2), m, h,
					e),
			lo, hi));
}

void tinyaot_mul_s16(const struct tinyaot_mul_s8_params *p, const int16_t *input1,
		     const int16_t *input2, int16_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       (int16_t)tinyaot_mul_one(p, input1[c.offset1], input2[c.offset2]));
}

void tinyaot_mul_f32(const struct tinyaot_mul_f32_params *p, const float *input1,
		     const float *input2, float *output)
{
	/* Read once: the stores could alias the parameters as far as C knows. */
	const float lo = p->act_min, hi = p->act_max;

	TINYAOT_BROADCAST_EACH(&p->b, output,
			       tinyaot_clamp_f32(input1[c.offset1] * input2[c.offset2], lo, hi));
}
