/* Reference MUL. Unlike ADD there is no common scale to reach first: the product of
 * the offset inputs (at most 255 * 255) is requantised once, from scale1 * scale2 to
 * the output scale.
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/mul.h>

static int8_t mul_s8_one(const struct tinyaot_mul_s8_params *p, int32_t a, int32_t b)
{
	const int32_t prod = (a + p->input1_offset) * (b + p->input2_offset);
	const int32_t out =
		tinyaot_mbqm(prod, p->output_multiplier, p->output_shift) + p->output_offset;

	return (int8_t)tinyaot_clamp_i32(out, p->act_min, p->act_max);
}

void tinyaot_mul_s8(const struct tinyaot_mul_s8_params *p, const int8_t *input1,
		    const int8_t *input2, int8_t *output)
{
	const struct tinyaot_broadcast *b = &p->b;

	for (int32_t i0 = 0; i0 < b->shape[0]; i0++) {
		for (int32_t i1 = 0; i1 < b->shape[1]; i1++) {
			for (int32_t i2 = 0; i2 < b->shape[2]; i2++) {
				const int8_t *x = input1 + i0 * b->stride1[0] + i1 * b->stride1[1] +
						  i2 * b->stride1[2];
				const int8_t *y = input2 + i0 * b->stride2[0] + i1 * b->stride2[1] +
						  i2 * b->stride2[2];

				for (int32_t i3 = 0; i3 < b->shape[3]; i3++) {
					*output++ = mul_s8_one(p, x[i3 * b->stride1[3]],
							       y[i3 * b->stride2[3]]);
				}
			}
		}
	}
}

void tinyaot_mul_f32(const struct tinyaot_mul_f32_params *p, const float *input1,
		     const float *input2, float *output)
{
	const struct tinyaot_broadcast *b = &p->b;

	for (int32_t i0 = 0; i0 < b->shape[0]; i0++) {
		for (int32_t i1 = 0; i1 < b->shape[1]; i1++) {
			for (int32_t i2 = 0; i2 < b->shape[2]; i2++) {
				const float *x = input1 + i0 * b->stride1[0] + i1 * b->stride1[1] +
						 i2 * b->stride1[2];
				const float *y = input2 + i0 * b->stride2[0] + i1 * b->stride2[1] +
						 i2 * b->stride2[2];

				for (int32_t i3 = 0; i3 < b->shape[3]; i3++) {
					float v = x[i3 * b->stride1[3]] * y[i3 * b->stride2[3]];

					v = v < p->act_min ? p->act_min : v;
					*output++ = v > p->act_max ? p->act_max : v;
				}
			}
		}
	}
}
