/*
 * FULLY_CONNECTED int8 for cores with the DSP extension (tinyaot/fully_connected_fast.h). A word
 * of four inputs, split by SXTB16 into inputs 0 and 2 and inputs 1 and 3, meets a word of four
 * weights of one unit, split alike, in two SMLAD: per four inputs and a block of four units,
 * 23 instructions for 16 multiply-accumulates, where the Thumb-2 loop takes 36. The weights are
 * in the layout the compiler writes where TINYAOT_DSP_KERNELS: per block, per four inputs, each
 * unit's word, then the depth % 4 last inputs as in the default layout (four units per input).
 */
#include <tinyaot/dsp_simd.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/fully_connected_fast.h>
#include <tinyaot/isa.h>

#if TINYAOT_DSP_KERNELS
/* Requantises a unit's sum with its row q of the table, clamped. */
static inline int8_t tinyaot_fc_out(const struct tinyaot_fc_fast_params *p, int32_t acc,
				    const int32_t *q)
{
	return (int8_t)tinyaot_clamp_i32(tinyaot_requant(acc, q[0], q[1], q[2]), p->act_min,
					 p->act_max);
}

void tinyaot_fc_blocks_dsp(const struct tinyaot_fc_fast_params *p,
			   const struct tinyaot_fc_blocks *k)
{
	const int8_t *const x = k->x;
	const int8_t *w = k->weights;
	const int32_t *t = k->table;
	int8_t *out = k->out;
	const int8_t *const words_end = x + (p->depth & ~3);
	const int8_t *const end = x + p->depth;

	for (int32_t b = 0; b < k->blocks; b++, t += 16, out += 4) {
		/* Four sums in registers: an array would live on the stack. */
		int32_t a0 = t[0], a1 = t[1], a2 = t[2], a3 = t[3];
		const int8_t *xi = x;

		for (; xi < words_end; xi += 4, w += 16) {
			const uint32_t xv = tinyaot_dsp_word(xi);
			const int32_t xe = __sxtb16((int32_t)xv);
			const int32_t xo = tinyaot_dsp_odd(xv);

			a0 = tinyaot_dsp_dot4(a0, xe, xo, tinyaot_dsp_word(w));
			a1 = tinyaot_dsp_dot4(a1, xe, xo, tinyaot_dsp_word(w + 4));
			a2 = tinyaot_dsp_dot4(a2, xe, xo, tinyaot_dsp_word(w + 8));
			a3 = tinyaot_dsp_dot4(a3, xe, xo, tinyaot_dsp_word(w + 12));
		}
		for (; xi < end; xi++, w += 4) {
			a0 += w[0] * *xi;
			a1 += w[1] * *xi;
			a2 += w[2] * *xi;
			a3 += w[3] * *xi;
		}
		out[0] = tinyaot_fc_out(p, a0, t + 4);
		out[1] = tinyaot_fc_out(p, a1, t + 7);
		out[2] = tinyaot_fc_out(p, a2, t + 10);
		out[3] = tinyaot_fc_out(p, a3, t + 13);
	}
}
#endif
