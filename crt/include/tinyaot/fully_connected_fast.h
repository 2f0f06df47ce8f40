/*
 * FULLY_CONNECTED int8, fast path: four units at a time share each input byte (a Thumb-2
 * loop on Cortex-M3, SMLAD on cores with the DSP extension), weights regrouped by the compiler
 * in the order the loop reads them, the input zero point folded into the bias, requantisation
 * as tinyaot/requant.h. Each batch row is read whole before any of its outputs is written (no
 * overlap is declared anyway).
 */
#ifndef TINYAOT_FULLY_CONNECTED_FAST_H_
#define TINYAOT_FULLY_CONNECTED_FAST_H_

#include <stddef.h>
#include <stdint.h>
#include <tinyaot/isa.h>
#include <tinyaot/requant.h>

struct tinyaot_fc_fast_params {
	int32_t batches;
	int32_t depth;
	int32_t units; /* a multiple of 4 */
	int32_t act_min, act_max;
	/* Per block of four units: depth groups of four weights, one per unit of the block; where
	 * TINYAOT_DSP_KERNELS, crt/src/dsp/fully_connected_dsp.c's layout.
	 */
	const int8_t *weights;
	/* Per block of four units: their bias + input offset * sum of weights, then their mult,
	 * high and shift for tinyaot_requant().
	 */
	const int32_t *table;
};

void tinyaot_fc_fast_s8(const struct tinyaot_fc_fast_params *p, const int8_t *input,
			int8_t *output);

#if TINYAOT_DSP_KERNELS
/* One batch row, with the DSP extension (crt/src/dsp/fully_connected_dsp.c). */
void tinyaot_fc_row_dsp(const struct tinyaot_fc_fast_params *p, const int8_t *x, int8_t *out);
#endif

#endif /* TINYAOT_FULLY_CONNECTED_FAST_H_ */
