/* Reference MUL. Unlike ADD there is no common scale to reach first: the product of
 * the offset inputs (at most 255 * 255; int16, without offsets, at most 2^30) is
 * requantised once, from scale1 * scale2 to the output scale.
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>
#include <tinyaot/mul.h>
#include <tinyaot/requant.h>

#if TINYAOT_MVE_KERNELS
#include <tinyaot/requant_mve.h>
#endif

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

#if TINYAOT_MVE_KERNELS
/*
 * With Helium, a row of the innermost dim four elements at a time (an input broadcast along it
 * is one VDUP): widening loads, the offsets, VMUL and tinyaot_requant lane by lane
 * (tinyaot/requant_mve.h), the clamp and a narrowing store, the row's last w % 4 predicated.
 * Each group's reads come before its writes, so the planner's overlaps hold.
 */
static void tinyaot_mul_fast_mve(const struct tinyaot_mul_fast_params *p, const int8_t *input1,
				 const int8_t *input2, int8_t *output)
{
	const int32x4_t m = vdupq_n_s32(p->mult), h = vdupq_n_s32(p->high);
	const int32x4_t neg_e = vdupq_n_s32(-p->shift);
	const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);

	TINYAOT_BROADCAST_ROWS(&p->b, {
		const int8_t *x1 = input1 + row.offset1;
		const int8_t *x2 = input2 + row.offset2;

		for (int32_t k = 0; k < w_; k += 4) {
			const mve_pred16_t live = vctp32q((uint32_t)(w_ - k));
			const int32x4_t a = s1_ ? vldrbq_z_s32(x1 + k, live) : vdupq_n_s32(*x1);
			const int32x4_t b = s2_ ? vldrbq_z_s32(x2 + k, live) : vdupq_n_s32(*x2);
			const int32x4_t prod = vmulq_s32(vaddq_n_s32(a, p->input1_offset),
							 vaddq_n_s32(b, p->input2_offset));
			const int32x4_t out = tinyaot_requant_mve(prod, m, h, neg_e);

			vstrbq_p_s32(output + i_ + k, vmaxq_s32(vminq_s32(out, hi), lo), live);
		}
	});
}
#else
/*
 * One row of the innermost dim, elements in order, each read before its write. A function of
 * its own (not inlined) so that its values stay in registers: inside the broadcast loop, with
 * the cursor live around it, the compiler spilled five of them, loaded again per element.
 */
static void __attribute__((noinline))
tinyaot_mul_fast_row(const struct tinyaot_mul_fast_params *p, const int8_t *a, int32_t s1,
		     const int8_t *b, int32_t s2, int8_t *out, int32_t n)
{
	const int32_t o1 = p->input1_offset, o2 = p->input2_offset;
	const int32_t m = p->mult, h = p->high, e = p->shift;
	const int32_t lo = p->act_min, hi = p->act_max;
	int8_t *const end = out + n;

	if (lo == INT8_MIN && hi == INT8_MAX) {
		/* The clamp of all of int8: one SSAT. */
		for (; out != end; out++, a += s1, b += s2) {
			*out = (int8_t)tinyaot_sat_s8(
				tinyaot_requant((*a + o1) * (*b + o2), m, h, e));
		}
		return;
	}
	for (; out != end; out++, a += s1, b += s2) {
		*out = (int8_t)tinyaot_clamp_i32(tinyaot_requant((*a + o1) * (*b + o2), m, h, e),
						 lo, hi);
	}
}

static void tinyaot_mul_fast_c(const struct tinyaot_mul_fast_params *p, const int8_t *input1,
			       const int8_t *input2, int8_t *output)
{
	TINYAOT_BROADCAST_ROWS(&p->b, {
		tinyaot_mul_fast_row(p, input1 + row.offset1, s1_, input2 + row.offset2, s2_,
				     output + i_, w_);
	});
}
#endif

void tinyaot_mul_fast_s8(const struct tinyaot_mul_fast_params *p, const int8_t *input1,
			 const int8_t *input2, int8_t *output)
{
#if TINYAOT_MVE_KERNELS
	tinyaot_mul_fast_mve(p, input1, input2, output);
#else
	tinyaot_mul_fast_c(p, input1, input2, output);
#endif
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
