/*
 * Sums of int8 weight rows times an int8 vector, for the ops whose products are a matrix times a
 * vector of the stored bytes (the input zero point folded into their biases by the compiler):
 * the LSTM's gates, SVDF's feature products. Four rows at a time share each input: VMLADAVA on
 * sixteen with Helium, SMLAD on four with the DSP extension, MLA elsewhere.
 */
#ifndef TINYAOT_DOT_S8_H_
#define TINYAOT_DOT_S8_H_

#include <stdint.h>

#include <tinyaot/dsp_simd.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>
#endif

/* Four rows' sums (rows of n weights, one after the other) added to acc, the int8 inputs read
 * once for the four.
 */
static inline void tinyaot_dot4_s8(const int8_t *w, int32_t n, const int8_t *a, int32_t *acc)
{
	const int8_t *w1 = w + n, *w2 = w1 + n, *w3 = w2 + n;
	int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
	int32_t d = 0;

#if TINYAOT_MVE_KERNELS
	/* Sixteen activations per vector, each unit's sixteen weights multiplied and summed into
	 * its sum by one VMLADAVA; the last n % 16 in one more step under a tail predicate, whose
	 * loads read nothing past the rows and give zeros (a scalar tail made the 28 inputs and 20
	 * units of TFLite Micro's MNIST LSTM twelve and four MLA steps per unit).
	 */
	for (; d + 16 <= n; d += 16) {
		const int8x16_t xv = vld1q_s8(a + d);

		a0 = vmladavaq_s8(a0, vld1q_s8(w + d), xv);
		a1 = vmladavaq_s8(a1, vld1q_s8(w1 + d), xv);
		a2 = vmladavaq_s8(a2, vld1q_s8(w2 + d), xv);
		a3 = vmladavaq_s8(a3, vld1q_s8(w3 + d), xv);
	}
	if (d < n) {
		const mve_pred16_t tail = vctp8q((uint32_t)(n - d));
		const int8x16_t xv = vldrbq_z_s8(a + d, tail);

		a0 = vmladavaq_s8(a0, vldrbq_z_s8(w + d, tail), xv);
		a1 = vmladavaq_s8(a1, vldrbq_z_s8(w1 + d, tail), xv);
		a2 = vmladavaq_s8(a2, vldrbq_z_s8(w2 + d, tail), xv);
		a3 = vmladavaq_s8(a3, vldrbq_z_s8(w3 + d, tail), xv);
		d = n;
	}
#elif TINYAOT_ISA_DSP
	/* Four activations and four weights of each unit per word: two SMLAD per unit. */
	const int8_t *wd = w;
	const int32_t n2 = 2 * n, n3 = 3 * n;

	/* One pointer to the four rows, the others at offsets: four would not stay in registers. */
	for (; d + 4 <= n; d += 4, wd += 4) {
		const uint32_t xv = tinyaot_dsp_word(a + d);
		const int32_t xe = __sxtb16((int32_t)xv);
		const int32_t xo = tinyaot_dsp_odd(xv);

		a0 = tinyaot_dsp_dot4(a0, xe, xo, tinyaot_dsp_word(wd));
		a1 = tinyaot_dsp_dot4(a1, xe, xo, tinyaot_dsp_word(wd + n));
		a2 = tinyaot_dsp_dot4(a2, xe, xo, tinyaot_dsp_word(wd + n2));
		a3 = tinyaot_dsp_dot4(a3, xe, xo, tinyaot_dsp_word(wd + n3));
	}
#endif
	for (; d < n; d++) {
		const int32_t x = a[d];

		a0 += w[d] * x;
		a1 += w1[d] * x;
		a2 += w2[d] * x;
		a3 += w3[d] * x;
	}
	acc[0] = a0;
	acc[1] = a1;
	acc[2] = a2;
	acc[3] = a3;
}

#if defined(__GNUC__) && !defined(__clang__)
/* GCC's scheduler would start the next steps' loads before this one's products and spill
 * what they displace.
 */
#define TINYAOT_DOT_UNSCHEDULED __attribute__((optimize("no-schedule-insns")))
#else
#define TINYAOT_DOT_UNSCHEDULED
#endif

/* The inputs a block of tinyaot_dot4_blocked_s8 takes: one vector, four DSP words. */
#define TINYAOT_DOT_BLOCK 16

/* One input of a block: its products with the four rows' weights, TINYAOT_DOT_BLOCK apart. The
 * empty asm keeps the sums input by input: GCC would otherwise sum a row's sixteen products in
 * turn, all sixteen inputs loaded first, and spill them (about 1.2 more Cortex-M3 instructions
 * per MAC).
 */
static inline void tinyaot_dot4_at(int32_t *acc, const int8_t *w, const int8_t *a, int32_t k)
{
	const int32_t x = a[k];

	acc[0] += w[k] * x;
	acc[1] += w[TINYAOT_DOT_BLOCK + k] * x;
	acc[2] += w[2 * TINYAOT_DOT_BLOCK + k] * x;
	acc[3] += w[3 * TINYAOT_DOT_BLOCK + k] * x;
	__asm__("" : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3]));
}

/* Four inputs of a block from offset k. Called with constant offsets, every load is at an
 * immediate offset from the block's two pointers: the four rows' pointers, their offsets and
 * the sums no longer outnumber the registers, which made the row-major loop reload them.
 */
static inline void tinyaot_dot4_step(int32_t *acc, const int8_t *w, const int8_t *a, int32_t k)
{
#if TINYAOT_ISA_DSP
	const uint32_t xv = tinyaot_dsp_word(a + k);
	const int32_t xe = __sxtb16((int32_t)xv);
	const int32_t xo = tinyaot_dsp_odd(xv);

	acc[0] = tinyaot_dsp_dot4(acc[0], xe, xo, tinyaot_dsp_word(w + k));
	acc[1] = tinyaot_dsp_dot4(acc[1], xe, xo, tinyaot_dsp_word(w + TINYAOT_DOT_BLOCK + k));
	acc[2] = tinyaot_dsp_dot4(acc[2], xe, xo, tinyaot_dsp_word(w + 2 * TINYAOT_DOT_BLOCK + k));
	acc[3] = tinyaot_dsp_dot4(acc[3], xe, xo, tinyaot_dsp_word(w + 3 * TINYAOT_DOT_BLOCK + k));
#else
	tinyaot_dot4_at(acc, w, a, k);
	tinyaot_dot4_at(acc, w, a, k + 1);
	tinyaot_dot4_at(acc, w, a, k + 2);
	tinyaot_dot4_at(acc, w, a, k + 3);
#endif
}

/*
 * Four rows' sums added to acc, from weights the compiler laid out in blocks (ops/dot_common.
 * dot4_blocks): TINYAOT_DOT_BLOCK weights of the first row, of the second, third and fourth for
 * the same inputs, then the next block; the n % TINYAOT_DOT_BLOCK weights left of each row
 * follow, row after row, as tinyaot_dot4_s8 reads rows.
 */
static inline TINYAOT_DOT_UNSCHEDULED void tinyaot_dot4_blocked_s8(const int8_t *w, int32_t n,
								   const int8_t *a, int32_t *acc)
{
	const int8_t *end = a + (n - n % TINYAOT_DOT_BLOCK);
	int32_t s[4] = {acc[0], acc[1], acc[2], acc[3]};

#if TINYAOT_MVE_KERNELS
	/* A pointer a row, each load stepping it on by four blocks (VLDRB's writeback): offsets
	 * from one pointer cost a copy and an add a block.
	 */
	const int8_t *w1 = w + TINYAOT_DOT_BLOCK, *w2 = w1 + TINYAOT_DOT_BLOCK;
	const int8_t *w3 = w2 + TINYAOT_DOT_BLOCK;

	/* Hidden from GCC, which would otherwise derive the four from one pointer again. */
	__asm__("" : "+r"(w1), "+r"(w2), "+r"(w3));
	for (; a < end; a += TINYAOT_DOT_BLOCK) {
		const int8x16_t xv = vld1q_s8(a);

		s[0] = vmladavaq_s8(s[0], vld1q_s8(w), xv);
		s[1] = vmladavaq_s8(s[1], vld1q_s8(w1), xv);
		s[2] = vmladavaq_s8(s[2], vld1q_s8(w2), xv);
		s[3] = vmladavaq_s8(s[3], vld1q_s8(w3), xv);
		w += 4 * TINYAOT_DOT_BLOCK;
		w1 += 4 * TINYAOT_DOT_BLOCK;
		w2 += 4 * TINYAOT_DOT_BLOCK;
		w3 += 4 * TINYAOT_DOT_BLOCK;
	}
#else
	for (; a < end; a += TINYAOT_DOT_BLOCK, w += 4 * TINYAOT_DOT_BLOCK) {
		tinyaot_dot4_step(s, w, a, 0);
		tinyaot_dot4_step(s, w, a, 4);
		tinyaot_dot4_step(s, w, a, 8);
		tinyaot_dot4_step(s, w, a, 12);
	}
#endif
	tinyaot_dot4_s8(w, n % TINYAOT_DOT_BLOCK, a, s);
	acc[0] = s[0];
	acc[1] = s[1];
	acc[2] = s[2];
	acc[3] = s[3];
}

/* One row's sum. */
static inline int32_t tinyaot_dot_s8(const int8_t *w, int32_t n, const int8_t *a)
{
	int32_t acc = 0;

	for (int32_t d = 0; d < n; d++) {
		acc += w[d] * a[d];
	}
	return acc;
}

#endif /* TINYAOT_DOT_S8_H_ */
