/*
 * CONV_2D int8 with Helium (tinyaot/conv_fast.h): the products of a pair of output pixels'
 * windows with a block of four channels. Per 16 inputs of a run, one VLDRB of each pixel's
 * inputs, one of each channel's weights and eight VMLADAVA.S8 (a channel's 16 weights against
 * both pixels): 128 multiply-accumulates. A run's len % 16 last inputs are one more step
 * predicated by VCTP, whose loads read nothing past the run and give zeros. The weights are in
 * the layout the compiler writes for tinyaot_conv_pairs_mve: per block, each channel's depth
 * weights in a row, in (ky, kx, ic) order, so run r's are the row's bytes r * len on. The sums
 * are exact int32, as the portable routine's. Each pixel's four outputs are then requantised in
 * one vector, lane by lane the same 64-bit arithmetic as tinyaot_requant_c and
 * tinyaot_requant_line, clamped and stored by one predicated VSTRB (the highest block's last
 * channels only); blocks and pairs go in the portable routine's order (tinyaot/conv_fast.h).
 */
#include <string.h>
#include <tinyaot/conv_fast.h>
#include <tinyaot/isa.h>
#include <tinyaot/requant.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>

/* Adds a channel's 16 weights v against both pixels' inputs to its two sums. */
static inline void tinyaot_conv_mve_mac2(int8x16_t xa, int8x16_t xb, int8x16_t v, int32_t *a,
					 int32_t *b)
{
	*a = vmladavaq_s8(*a, xa, v);
	*b = vmladavaq_s8(*b, xb, v);
}

static void tinyaot_conv_dot_mve(const int8_t *const *run, int32_t runs, int32_t len,
				 const int8_t *w, int32_t acc[8])
{
	const int32_t depth = runs * len;
	const int32_t whole = len / 16;
	/* The predicate of a run's last inputs; none when len is a multiple of 16. */
	const mve_pred16_t tail = vctp8q((uint32_t)(len % 16));
	/* Sums in registers: the array would be read and written through memory. */
	int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
	int32_t b0 = acc[4], b1 = acc[5], b2 = acc[6], b3 = acc[7];

	for (int32_t r = 0; r < runs; r++, w += len) {
		const int8_t *a = run[2 * r];
		const int8_t *b = run[2 * r + 1];
		const int8_t *w0 = w;
		const int8_t *w1 = w + depth;
		const int8_t *w2 = w + 2 * depth;
		const int8_t *w3 = w + 3 * depth;
		int8x16_t xa, xb;

		/* Unpredicated: the predicate register would cost a VPST per load. */
		for (int32_t i = 0; i < whole; i++) {
			xa = vld1q_s8(a);
			xb = vld1q_s8(b);
			tinyaot_conv_mve_mac2(xa, xb, vld1q_s8(w0), &a0, &b0);
			tinyaot_conv_mve_mac2(xa, xb, vld1q_s8(w1), &a1, &b1);
			tinyaot_conv_mve_mac2(xa, xb, vld1q_s8(w2), &a2, &b2);
			tinyaot_conv_mve_mac2(xa, xb, vld1q_s8(w3), &a3, &b3);
			a += 16;
			b += 16;
			w0 += 16;
			w1 += 16;
			w2 += 16;
			w3 += 16;
		}
		if (len % 16 != 0) {
			xa = vldrbq_z_s8(a, tail);
			xb = vldrbq_z_s8(b, tail);
			tinyaot_conv_mve_mac2(xa, xb, vldrbq_z_s8(w0, tail), &a0, &b0);
			tinyaot_conv_mve_mac2(xa, xb, vldrbq_z_s8(w1, tail), &a1, &b1);
			tinyaot_conv_mve_mac2(xa, xb, vldrbq_z_s8(w2, tail), &a2, &b2);
			tinyaot_conv_mve_mac2(xa, xb, vldrbq_z_s8(w3, tail), &a3, &b3);
		}
	}
	const int32_t sums[8] = {a0, a1, a2, a3, b0, b1, b2, b3};

	memcpy(acc, sums, sizeof(sums));
}

/*
 * The upper word of the 64-bit hi * 2^32 + lo + acc * mult, lane by lane, shifted right by
 * shift: tinyaot_requant_c (lo the rounding word c, or ~c for a negative acc, and hi + 1 less)
 * and tinyaot_requant_line (lo acc itself) as the scalar code computes them. VMULH gives the
 * product's signed upper word and VMUL its lower; the carry out of the lower words' sum is
 * added where that sum wrapped below the product's lower word.
 */
static inline int32x4_t tinyaot_conv_mve_upper(int32x4_t acc, int32x4_t mult, int32x4_t hi,
					       int32x4_t lo, int32x4_t shift)
{
	const uint32x4_t low = vreinterpretq_u32_s32(vmulq_s32(acc, mult));
	const uint32x4_t sum = vaddq_u32(low, vreinterpretq_u32_s32(lo));
	int32x4_t upper = vaddq_s32(vmulhq_s32(acc, mult), hi);

	upper = vaddq_m_n_s32(upper, upper, 1, vcmphiq_u32(low, sum));
	return vshlq_s32(upper, vnegq_s32(shift));
}

/* The four channels' outputs of one pixel, requantised with the block's table t. */
static inline int32x4_t tinyaot_conv_mve_requant(const struct tinyaot_pair_job *job,
						 const int32_t *t, int32x4_t acc)
{
	if (job->line) {
		const int32x4x2_t q = vld2q_s32(t + 4);

		return tinyaot_conv_mve_upper(acc, q.val[0], q.val[1], acc,
					      vdupq_n_s32(TINYAOT_LINE_SHIFT));
	}
	const int32x4x4_t q = vld4q_s32(t + 4);
	const int32x4_t s = vshrq_n_s32(acc, 31);

	return tinyaot_conv_mve_upper(acc, q.val[0], vaddq_s32(q.val[1], s), veorq_s32(q.val[3], s),
				      q.val[2]);
}

/* One pair of a job: every block, in the order of the portable routine (tinyaot/conv_fast.h). */
static void tinyaot_conv_mve_blocks(const struct tinyaot_pair_job *job, const int8_t *const *run,
				    int32_t runs, int8_t *out_a, int8_t *out_b)
{
	const int32_t depth = runs * job->len;
	const int8_t *w = job->weights;
	const int32_t *t = job->table;
	const int32x4_t lo = vdupq_n_s32(job->act_min);
	const int32x4_t hi = vdupq_n_s32(job->act_max);

	for (int32_t k = 0; k < job->blocks; k++) {
		const int32_t highest = job->out_step > 0 ? k == job->blocks - 1 : k == 0;
		/* The highest block stores its last channels only, back bytes early. */
		const mve_pred16_t store = vctp32q((uint32_t)(highest ? job->last : 4));
		const int32_t back = highest ? job->back : 0;
		int32_t acc[8] = {t[0], t[1], t[2], t[3], t[0], t[1], t[2], t[3]};
		int32x4_t va, vb;

		tinyaot_conv_dot_mve(run, runs, job->len, w, acc);
		w += 4 * depth + job->weights_step;
		va = tinyaot_conv_mve_requant(job, t, vld1q_s32(acc));
		vb = tinyaot_conv_mve_requant(job, t, vld1q_s32(acc + 4));
		vstrbq_p_s32(out_a - back, vmaxq_s32(vminq_s32(va, hi), lo), store);
		vstrbq_p_s32(out_b - back, vmaxq_s32(vminq_s32(vb, hi), lo), store);
		t = (const int32_t *)(const void *)((const uint8_t *)t + job->table_step);
		out_a += job->out_step;
		out_b += job->out_step;
	}
}

void tinyaot_conv_pairs_mve(const struct tinyaot_pair_job *job)
{
	const int8_t *run[2 * TINYAOT_CONV_FAST_RUNS_MAX];
	const int32_t n = (int32_t)(job->runs_end - job->run);

	for (int32_t i = 0; i < job->pairs; i++) {
		for (int32_t k = 0; k < n; k++) {
			run[k] = job->run[k] + i * job->pair_step;
		}
		tinyaot_conv_mve_blocks(job, run, n / 2, job->out_a + i * job->pair_out,
					job->out_b + i * job->pair_out);
	}
}
#endif
