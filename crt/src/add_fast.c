/* ADD int8 without broadcasting, fast path (tinyaot/add_fast.h). */
#include <tinyaot/add_fast.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
#include <tinyaot/requant_mve.h>

/*
 * With Helium, four elements at a time: a widening VLDRB of each input, a VLDRW gather of each
 * table entry, then tinyaot_requant lane by lane (tinyaot/requant_mve.h), the clamp and a
 * narrowing store. The last count % 4 go predicated: their loads, gathers and store
 * touch nothing past the tensors. Each group's reads come before its writes, so a read is never
 * later than in the portable loop's order and a write no earlier than one element at a time would
 * need: the planner's overlaps hold.
 */
struct tinyaot_add_mve {
	int32x4_t m, h, shift, lo, hi;
};

/* The four outputs of the table entries' sums acc. */
static inline int32x4_t tinyaot_add_mve_out(const struct tinyaot_add_mve *k, int32x4_t acc)
{
	return vmaxq_s32(vminq_s32(tinyaot_requant_mve(acc, k->m, k->h, k->shift), k->hi), k->lo);
}

static void tinyaot_add_fast_mve(const struct tinyaot_add_fast_params *p, const int8_t *input1,
				 const int8_t *input2, int8_t *output)
{
	const struct tinyaot_add_mve k = {
		vdupq_n_s32(p->mult),    vdupq_n_s32(p->high),    vdupq_n_s32(-p->shift),
		vdupq_n_s32(p->act_min), vdupq_n_s32(p->act_max),
	};
	const int32_t *t1 = p->table1;
	const int32_t *t2 = p->table2;
	const int32_t whole = p->count / 4;

	/* The inputs + 128 index the tables. */
	for (int32_t i = 0; i < whole; i++, input1 += 4, input2 += 4, output += 4) {
		const uint32x4_t x1 = vreinterpretq_u32_s32(vaddq_n_s32(vldrbq_s32(input1), 128));
		const uint32x4_t x2 = vreinterpretq_u32_s32(vaddq_n_s32(vldrbq_s32(input2), 128));
		const int32x4_t acc = vaddq_s32(vldrwq_gather_shifted_offset_s32(t1, x1),
						vldrwq_gather_shifted_offset_s32(t2, x2));

		vstrbq_s32(output, tinyaot_add_mve_out(&k, acc));
	}
	if (p->count % 4 != 0) {
		const mve_pred16_t live = vctp32q((uint32_t)(p->count % 4));
		const uint32x4_t x1 =
			vreinterpretq_u32_s32(vaddq_n_s32(vldrbq_z_s32(input1, live), 128));
		const uint32x4_t x2 =
			vreinterpretq_u32_s32(vaddq_n_s32(vldrbq_z_s32(input2, live), 128));
		const int32x4_t acc = vaddq_s32(vldrwq_gather_shifted_offset_z_s32(t1, x1, live),
						vldrwq_gather_shifted_offset_z_s32(t2, x2, live));

		vstrbq_p_s32(output, tinyaot_add_mve_out(&k, acc), live);
	}
}
#else
static void tinyaot_add_fast_c(const struct tinyaot_add_fast_params *p, const int8_t *input1,
			       const int8_t *input2, int8_t *output)
{
	const int32_t *t1 = p->table1 + 128;
	const int32_t *t2 = p->table2 + 128;
	const int32_t m = p->mult, h = p->high, e = p->shift;
	const int32_t lo = p->act_min, hi = p->act_max;
	const int32_t n = p->count;

	if (lo == -128 && hi == 127) {
		for (int32_t i = 0; i < n; i++) {
			const int32_t sum = t1[input1[i]] + t2[input2[i]];

			output[i] = (int8_t)tinyaot_sat_s8(tinyaot_requant(sum, m, h, e));
		}
		return;
	}
	for (int32_t i = 0; i < n; i++) {
		const int32_t sum = t1[input1[i]] + t2[input2[i]];

		output[i] = (int8_t)tinyaot_clamp_i32(tinyaot_requant(sum, m, h, e), lo, hi);
	}
}
#endif

void tinyaot_add_fast_s8(const struct tinyaot_add_fast_params *p, const int8_t *input1,
			 const int8_t *input2, int8_t *output)
{
#if TINYAOT_MVE_KERNELS
	tinyaot_add_fast_mve(p, input1, input2, output);
#else
	tinyaot_add_fast_c(p, input1, input2, output);
#endif
}
