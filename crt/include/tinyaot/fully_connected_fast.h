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
	int32_t units;
	int32_t act_min, act_max;
	/* Per block of four units (units rounded up): depth groups of four weights, one per unit
	 * of the block; where TINYAOT_DSP_KERNELS, crt/src/dsp/fully_connected_dsp.c's layout,
	 * where TINYAOT_MVE_KERNELS, crt/src/mve/fully_connected_mve.c's.
	 * Over four units not a multiple of 4, the highest block is the last four units, whose
	 * outputs rewrite the block below's last ones with the same values; under four, units
	 * past the last have zero weights, and their outputs are not stored.
	 */
	const int8_t *weights;
	/* Per block of four units: their bias + input offset * sum of weights, then their mult,
	 * high and shift for tinyaot_requant().
	 */
	const int32_t *table;
};

void tinyaot_fc_fast_s8(const struct tinyaot_fc_fast_params *p, const int8_t *input,
			int8_t *output);

/* Consecutive blocks of one batch row: their weights, table and outputs (4 a block). */
struct tinyaot_fc_blocks {
	const int8_t *x;
	const int8_t *weights;
	const int32_t *table;
	int8_t *out;
	int32_t blocks;
};

#if TINYAOT_MVE_KERNELS
/* With Helium (crt/src/mve/fully_connected_mve.c). */
void tinyaot_fc_blocks_mve(const struct tinyaot_fc_fast_params *p,
			   const struct tinyaot_fc_blocks *k);
#endif

#if TINYAOT_DSP_KERNELS
/* With the DSP extension (crt/src/dsp/fully_connected_dsp.c). */
void tinyaot_fc_blocks_dsp(const struct tinyaot_fc_fast_params *p,
			   const struct tinyaot_fc_blocks *k);
#endif

#endif /* TINYAOT_FULLY_CONNECTED_FAST_H_ */
