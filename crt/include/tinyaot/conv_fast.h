/*
 * CONV_2D int8, fast path: output pixels two at a time, output channels four at a time
 * (eight accumulators in registers), weights rearranged by the compiler in the order the
 * inner loop reads them, the input zero point folded into the bias, and padding read as
 * the zero point from a constant row instead of tested in the inner loop.
 *
 * The compiler picks it (scripts/tinyaot/ops/conv_2d.py) when the requantisation fits
 * tinyaot/requant.h; its element order, which the memory planner's overlap gap depends
 * on, is modelled exactly by scripts/tinyaot/inplace.py (conv_fast_steps):
 *
 *   for each pair of output pixels (2i, 2i+1) in NHW order (the last one alone if odd):
 *     [PATCH, or a clipped window: copy both input windows to the stack]
 *     for each block of four output channels:
 *       [ROWS, whole windows: read both input windows]
 *       write the block's channels of both pixels (over 4 channels not a multiple of 4,
 *       the highest block writes the last four, the block below's last ones again)
 *
 * and, with d.reverse = 1, pairs last to first and blocks last to first. The order of the
 * (up to) eight writes of a block does not matter: no read happens between them. With
 * clamp_after, every output is then read and written again, after the last input read.
 */
#ifndef TINYAOT_CONV_FAST_H_
#define TINYAOT_CONV_FAST_H_

#include <stddef.h>
#include <stdint.h>
#include <tinyaot/conv.h>
#include <tinyaot/isa.h>
#include <tinyaot/requant.h>

/* How a pair of pixels' input windows are presented to the inner loop. */
enum tinyaot_conv_fast_mode {
	/* Copied (zero point where padded) to a stack patch of k_h * k_w * in_c bytes each. */
	TINYAOT_CONV_PATCH = 0,
	/* Read in place, k_h runs of k_w * in_c bytes (padded rows read the constant zero row),
	 * when both windows are whole horizontally; otherwise as PATCH when the window fits the
	 * patch, else k_h * k_w runs of in_c bytes.
	 */
	TINYAOT_CONV_ROWS = 1,
};

/* Limits of the stack buffers; the compiler does not pick the kernel beyond them. The patch
 * size is a multiple of 4 (a patch is filled a word at a time).
 */
#define TINYAOT_CONV_FAST_PATCH_MAX 128
#define TINYAOT_CONV_FAST_RUNS_MAX  16

/* int32 words of a block's table: 4 biases, then 4 per channel; with line = 1, 2 per channel. */
#define TINYAOT_CONV_FAST_TABLE      20
#define TINYAOT_CONV_FAST_LINE_TABLE 12

/*
 * Runs a job (struct tinyaot_pair_job below): for each pair, for each block, accumulates bias +
 * the runs' products for both pixels and writes the requantised outputs. The compiler names
 * the routines in the params, so only those a model uses are linked:
 *
 *   tinyaot_conv_pairs      whole blocks and the clamp of int8: Thumb-2 assembly on Cortex-M3
 *                           and up, tinyaot_conv_pairs_c elsewhere (tinyaot_conv_pairs_line
 *                           for line tables);
 *   tinyaot_conv_pairs_dsp  the same where TINYAOT_DSP_KERNELS, with the weights in its layout
 *                           (tinyaot_conv_pairs_dsp_part: out_c over 4 not a multiple of 4,
 *                           as tinyaot_conv_pairs_part; tinyaot_conv_pairs_dsp16 and _part
 *                           for windows of up to TINYAOT_CONV_DSP16_DEPTH inputs);
 *   tinyaot_conv_pairs_part the clamp of int8 and out_c over 4 not a multiple of 4 (the highest
 *                           block repeats channels of the one below, see `back`): the same
 *                           assembly, with the highest block's outputs moved
 *                           (tinyaot_conv_pairs_line_part for line tables);
 *   tinyaot_conv_single     the last pixel of an odd count, alone, with one run (a = b), under
 *                           tinyaot_conv_pairs' conditions (tinyaot_conv_single_line for line
 *                           tables);
 *   tinyaot_conv_pairs_c    any job (the portable reference);
 *   tinyaot_conv_pairs_c1   1 to 3 channels (out_c): any job of one block, the routine named
 *   .. _c3                  for the channel count.
 *
 * The assembly saturates to int8; a narrower activation clamp is applied to the whole output
 * after the pairs (clamp_after).
 */
struct tinyaot_pair_job;
typedef void tinyaot_pair_fn(const struct tinyaot_pair_job *job);

tinyaot_pair_fn tinyaot_conv_pairs;
tinyaot_pair_fn tinyaot_conv_pairs_line;
tinyaot_pair_fn tinyaot_conv_pairs_c;
tinyaot_pair_fn tinyaot_conv_pairs_c1;
tinyaot_pair_fn tinyaot_conv_pairs_c2;
tinyaot_pair_fn tinyaot_conv_pairs_c3;
tinyaot_pair_fn tinyaot_conv_pairs_part;
tinyaot_pair_fn tinyaot_conv_pairs_line_part;
tinyaot_pair_fn tinyaot_conv_single;
tinyaot_pair_fn tinyaot_conv_single_line;
#if TINYAOT_DSP_KERNELS
tinyaot_pair_fn tinyaot_conv_pairs_dsp;
tinyaot_pair_fn tinyaot_conv_pairs_dsp_part;
/* The same for windows of at most TINYAOT_CONV_DSP16_DEPTH inputs (tinyaot/asm_layout.h), the
 * same weights: a pair's inputs widened once for all its blocks, in a stack buffer of 4 bytes
 * per input; for any depth where the job's `wide` is such a buffer (tinyaot_conv_fast_wide_s8).
 */
tinyaot_pair_fn tinyaot_conv_pairs_dsp16;
tinyaot_pair_fn tinyaot_conv_pairs_dsp16_part;
/* The same on weights the compiler wrote as int16 where the flash allows it (its
 * --speed-flash): per block, per half, per four inputs, the two channels' weights 1 and 3,
 * then their 0 and 2, 16 bytes, so that a step loads them with its inputs and no SXTB16.
 */
tinyaot_pair_fn tinyaot_conv_pairs_dsp16_w16;
tinyaot_pair_fn tinyaot_conv_pairs_dsp16_w16_part;
#endif
#if TINYAOT_MVE_KERNELS
/* Any job, with Helium (crt/src/mve/conv_mve.c), the weights in its layout. */
tinyaot_pair_fn tinyaot_conv_pairs_mve;
/* Jobs whose runs are whole steps of 16 inputs but the last run's tail (1x1 windows, or rows of
 * k_w * in_c a multiple of 16), with Helium, the weights in their layout and the table the
 * vector table (line 0): four channels in one pass (crt/src/mve/conv_quads_mve.S). _relu where
 * the activation clamps every output under the output zero point.
 */
tinyaot_pair_fn tinyaot_conv_pairs_mve16;
tinyaot_pair_fn tinyaot_conv_pairs_mve16_relu;
#endif

struct tinyaot_conv_fast_params {
	struct tinyaot_conv_dims d;
	int32_t mode;             /* enum tinyaot_conv_fast_mode */
	int32_t act_min, act_max; /* the fused activation, in output units */
	/* The input zero point, k_w * in_c (PATCH: unused) bytes of it. */
	const int8_t *zero_row;
	/* Per block of four output channels (out_c rounded up): k_h * k_w * in_c groups of
	 * four weights, one per channel of the block, in (ky, kx, ic) order. Over 4 channels, the
	 * highest block is the last four channels (out_c - 4 to out_c - 1). Under 4, for
	 * tinyaot_conv_pairs_c1 to _c3, out_c weights per input instead of four.
	 */
	const int8_t *weights;
	/* Bytes of weights per block: 4 * k_h * k_w * in_c (out_c times that under 4), but for
	 * a window of a depth not a multiple of 4 in tinyaot_conv_pairs_dsp16's layout, which
	 * pads it to one with zeros, and twice that for tinyaot_conv_pairs_dsp16_w16's int16.
	 */
	int32_t block_bytes;
	/* Per block (TINYAOT_CONV_FAST_TABLE words): the four channels' bias + input offset * sum
	 * of weights, then their mult, high, shift and c for tinyaot_requant_c() (the blocks'
	 * channels as the weights have them, channels past out_c zero). With line = 1
	 * (TINYAOT_CONV_FAST_LINE_TABLE words): the biases with the line's b added, then each
	 * channel's m and h for tinyaot_requant_line().
	 */
	const int32_t *table;
	/* 1: the table is for tinyaot_requant_line(); the compiler sets it only with the clamp of
	 * all of int8.
	 */
	int32_t line;
	/* The routine for pairs. With tinyaot_conv_pairs_dsp, which the generated code names
	 * only where TINYAOT_DSP_KERNELS is 1 and every run is a multiple of 4 bytes, the weights
	 * are in its layout instead: per block, per half (channels 0-1, then 2-3), per four
	 * consecutive inputs, each channel's four weights. With tinyaot_conv_pairs_mve (where
	 * TINYAOT_MVE_KERNELS, any job), per block each channel's k_h * k_w * in_c weights in a
	 * row.
	 */
	tinyaot_pair_fn *pairs;
	/* The routine for a lone last pixel with one run; NULL: pairs. */
	tinyaot_pair_fn *single;
	/* 1: the routines saturate to int8 only (the assembly), and the clamp of act_min and
	 * act_max, narrower, is applied to the output once every pixel is written: clamping
	 * after the saturation gives the same values, and the pairs keep the assembly.
	 */
	int32_t clamp_after;
};

/* Clamps count int8 values in place to [act_min, act_max]. */
void tinyaot_clamp_s8(int8_t *x, int32_t count, int32_t act_min, int32_t act_max);

void tinyaot_conv_fast_s8(const struct tinyaot_conv_fast_params *p, const int8_t *input,
			  int8_t *output);

/* The same, with wide a buffer of 4 bytes per window input (k_h * k_w * in_c rounded up to a
 * multiple of 4) that only this call uses, for tinyaot_conv_pairs_dsp16 over windows deeper
 * than its stack buffer; the other routines do not read it.
 */
void tinyaot_conv_fast_wide_s8(const struct tinyaot_conv_fast_params *p, const int8_t *input,
			       int8_t *output, int16_t *wide);

/*
 * Pairs of output pixels, all their blocks: what tinyaot_conv_fast_s8 hands to the pair
 * routine. The assembly reads the fields at the offsets of tinyaot/asm_layout.h.
 */
struct tinyaot_pair_job {
	const int8_t *const *run;      /* pairs of pointers (pixel a, pixel b) to the runs */
	const int8_t *const *runs_end; /* run + 2 * number of runs */
	int32_t len;                   /* bytes per run */
	const int8_t *weights;         /* the first block's weights */
	int32_t weights_step;          /* added after a block: 0 forward, -8 * depth reverse */
	const int32_t *table;          /* the first block's bias[4], 4 x (mult, high, shift, c) */
	int32_t table_step;            /* bytes to the next block's table: +-80, line +-48 */
	int8_t *out_a, *out_b;         /* the first block's outputs of pixel a and b */
	int32_t out_step;              /* added to out_a, out_b after a block: 4 or -4 */
	int32_t blocks;                /* number of blocks, at least 1 */
	int32_t act_min, act_max;      /* the activation clamp */
	int32_t last;                  /* channels of the highest block, 1 to 4 */
	/* Pairs of pixels done one after the other: every run pointer moves pair_step bytes and
	 * out_a, out_b pair_out bytes from one to the next.
	 */
	int32_t pairs, pair_step, pair_out;
	int32_t line;        /* the table is for tinyaot_requant_line(): bias[4], 4 x (m, h) */
	const int32_t *high; /* the highest block's table */
	/* The highest block's outputs start this many bytes (0 to 3) before its place: it holds
	 * the last four channels, some of them also the block below's. last is then 4.
	 */
	int32_t back;
	/* Where tinyaot_conv_pairs_dsp16 widens a pair's inputs, 4 bytes per input; NULL: its
	 * stack buffer.
	 */
	int16_t *wide;
};

#endif /* TINYAOT_CONV_FAST_H_ */
