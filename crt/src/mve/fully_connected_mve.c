/*
 * FULLY_CONNECTED int8 with Helium (tinyaot/fully_connected_fast.h). VMLADAVA.S8 multiplies 16
 * inputs with 16 weights of one unit and adds the products to the unit's sum: per 16 inputs and
 * a block of four units, one load of the inputs, four of weights and four VMLADAVA do 64
 * multiply-accumulates (10 instructions with the loop's LE). The depth % 16 last inputs are one
 * more step predicated by VCTP, whose loads read nothing past the row and give zeros. The weights
 * are in the layout the compiler writes where TINYAOT_MVE_KERNELS: per block, each unit's depth
 * weights in a row. The sums are exact int32 as in the portable kernel, and are requantised with
 * the same scalar tinyaot_requant (TFLite Micro's MultiplyByQuantizedMultiplier).
 */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/fully_connected_fast.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>

/* acc plus the products of 16 inputs (lanes outside `live` zero) with a unit's weights. */
static inline int32_t tinyaot_fc_mve_dot(int32_t acc, int8x16_t x, const int8_t *w,
					 mve_pred16_t live)
{
	return vmladavaq_s8(acc, x, vldrbq_z_s8(w, live));
}

void tinyaot_fc_blocks_mve(const struct tinyaot_fc_fast_params *p,
			   const struct tinyaot_fc_blocks *k)
{
	const int32_t depth = p->depth;
	const int32_t whole = depth / 16;
	/* The predicate of the last inputs; none when the depth is a multiple of 16. */
	const mve_pred16_t tail = vctp8q((uint32_t)(depth % 16));
	const int8_t *w = k->weights;
	const int32_t *t = k->table;
	int8_t *out = k->out;

	for (int32_t b = 0; b < k->blocks; b++, w += 4 * depth, t += 16, out += 4) {
		/* Four sums in registers: an array would live on the stack. */
		int32_t a0 = t[0], a1 = t[1], a2 = t[2], a3 = t[3];
		const int8_t *xi = k->x;
		const int8_t *w0 = w;
		const int8_t *w1 = w + depth;
		const int8_t *w2 = w + 2 * depth;
		const int8_t *w3 = w + 3 * depth;

		/* Unpredicated: the predicate register would cost a VPST per load. */
		for (int32_t i = 0; i < whole; i++) {
			const int8x16_t x = vld1q_s8(xi);

			a0 = vmladavaq_s8(a0, x, vld1q_s8(w0));
			a1 = vmladavaq_s8(a1, x, vld1q_s8(w1));
			a2 = vmladavaq_s8(a2, x, vld1q_s8(w2));
			a3 = vmladavaq_s8(a3, x, vld1q_s8(w3));
			xi += 16;
			w0 += 16;
			w1 += 16;
			w2 += 16;
			w3 += 16;
		}
		if (depth % 16 != 0) {
			const int8x16_t x = vldrbq_z_s8(xi, tail);

			a0 = tinyaot_fc_mve_dot(a0, x, w0, tail);
			a1 = tinyaot_fc_mve_dot(a1, x, w1, tail);
			a2 = tinyaot_fc_mve_dot(a2, x, w2, tail);
			a3 = tinyaot_fc_mve_dot(a3, x, w3, tail);
		}
		const int32_t sums[4] = {a0, a1, a2, a3};

		for (int32_t j = 0; j < 4; j++) {
			const int32_t *q = t + 4 + 3 * j;

			out[j] = (int8_t)tinyaot_clamp_i32(
				tinyaot_requant(sums[j], q[0], q[1], q[2]), p->act_min, p->act_max);
		}
	}
}
#endif
