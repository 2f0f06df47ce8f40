/*
 * CONV_2D int8 with Helium (tinyaot/conv_fast.h): the products of a pair of output pixels'
 * windows with a block of four channels. Per 16 inputs of a run, one VLDRB of each pixel's
 * inputs, one of each channel's weights and eight VMLADAVA.S8 (a channel's 16 weights against
 * both pixels): 128 multiply-accumulates. A run's len % 16 last inputs are one more step
 * predicated by VCTP, whose loads read nothing past the run and give zeros. The weights are in
 * the layout the compiler writes for tinyaot_conv_pairs_mve: per block, each channel's depth
 * weights in a row, in (ky, kx, ic) order, so run r's are the row's bytes r * len on. The sums
 * are exact int32, as the portable routine's; tinyaot_conv_pairs_mve requantises them as it does.
 */
#include <string.h>
#include <tinyaot/conv_fast.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>

/* Adds a channel's 16 weights v against both pixels' inputs to its two sums. */
static inline void tinyaot_conv_mve_mac2(int8x16_t xa, int8x16_t xb, int8x16_t v, int32_t *a,
					 int32_t *b)
{
	*a = vmladavaq_s8(*a, xa, v);
	*b = vmladavaq_s8(*b, xb, v);
}

void tinyaot_conv_dot_mve(const int8_t *const *run, int32_t runs, int32_t len, const int8_t *w,
			  int32_t acc[8])
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
#endif
