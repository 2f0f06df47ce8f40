/* Reference ADD: both inputs are brought to a common scale with 20 bits of headroom (15 for
 * int16, whose values take 8 more bits).
 */
#include <tinyaot/add.h>
#include <tinyaot/fixedpoint.h>

static int32_t tinyaot_add_one(const struct tinyaot_add_s8_params *p, int32_t a, int32_t b)
{
	const int32_t sa =
		tinyaot_mbqm((int32_t)((uint32_t)(a + p->input1_offset) << p->left_shift),
			     p->input1_multiplier, p->input1_shift);
	const int32_t sb =
		tinyaot_mbqm((int32_t)((uint32_t)(b + p->input2_offset) << p->left_shift),
			     p->input2_multiplier, p->input2_shift);
	const int32_t out =
		tinyaot_mbqm(sa + sb, p->output_multiplier, p->output_shift) + p->output_offset;

	return tinyaot_clamp_i32(out, p->act_min, p->act_max);
}

void tinyaot_add_s8(const struct tinyaot_add_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       (int8_t)tinyaot_add_one(p, input1[c.offset1], input2[c.offset2]));
}

void tinyaot_add_s16(const struct tinyaot_add_s8_params *p, const int16_t *input1,
		     const int16_t *input2, int16_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       (int16_t)tinyaot_add_one(p, input1[c.offset1], input2[c.offset2]));
}

void tinyaot_add_f32(const struct tinyaot_add_f32_params *p, const float *input1,
		     const float *input2, float *output)
{
	/* Read once: the stores could alias the parameters as far as C knows. */
	const float lo = p->act_min, hi = p->act_max;

	TINYAOT_BROADCAST_EACH(&p->b, output,
			       tinyaot_clamp_f32(input1[c.offset1] + input2[c.offset2], lo, hi));
}
