/*
 * DEPTHWISE_CONV_2D int8, fast path for 3x3 windows, depth multiplier 1, strides 1 and 2.
 *
 * For a group of up to six (stride 1) or four (stride 2) output pixels of a row and a chunk
 * of up to 16 channels, the kernel copies the group's window to a 16-byte aligned stack stage
 * (the zero point where padded: no edge cases, constant strides), then a block routine
 * computes every channel of the chunk: all of the group's outputs at once, each input column
 * loaded once and used by every output it reaches, the bias as the first product's addend.
 * The compiler picks the routine for the group's width (tinyaot_dw3x3_s<stride>_n<width>, a
 * straight-line Thumb-2 body on Cortex-M3 and up; tinyaot_dw3x3_line_s<stride>_n<width> for
 * line records), or tinyaot_dw3x3_c, the portable routine, for an activation clamp narrower
 * than int8. Only the routines a model names are linked.
 *
 * Element order (scripts/tinyaot/inplace.py, dwconv_fast_steps): groups of `group`
 * consecutive pixels of one output row (fewer at the row's end), in NHW order; for each chunk
 * of a group, the kernel reads the chunk's channels of the group's window, then writes them
 * for the group's outputs. With d.reverse = 1 the groups go last to first. Output channel c
 * reads input channel c only, so when the planner keeps the output a whole number of pixels
 * from the input (the overlap's modulus), an output byte can only overwrite an input byte of
 * its own channel, and this order needs the same gaps as one that reads all of a group's
 * channels before writing any.
 */
#ifndef TINYAOT_DWCONV_FAST_H_
#define TINYAOT_DWCONV_FAST_H_

#include <stddef.h>
#include <stdint.h>
#include <tinyaot/conv.h>
/* TINYAOT_DSP_KERNELS, which the generated params test to pick the DSP routines and records. */
#include <tinyaot/isa.h>

/* Channels per staged chunk. */
#define TINYAOT_DWCONV_FAST_CHUNK 16

/*
 * Per channel, eight int32 words: the bias with the input zero point folded in; the nine
 * weights in (ky, kx) order as bytes of words 1-3, least significant first, then three zero
 * bytes; m, h and e - 1 of tinyaot/requant.h; and c, the low word of the rounding constant
 * (tinyaot_requant_c).
 */
#define TINYAOT_DW3X3_RECORD 8

/*
 * With params.line = 1, six: the bias with the input zero point and the line's b folded in,
 * the weights as above, then m and h of tinyaot_requant_line.
 */
#define TINYAOT_DW3X3_LINE_RECORD 6

/*
 * Computes the outputs of every channel of a chunk. stage points at the chunk's first
 * channel in row 0, column 0 of the stage, which holds the window's 3 rows of
 * TINYAOT_DW3X3_COLS columns of 16 channel slots, then n outputs of 16 slots: the chunk's nc
 * channels occupy slots 16 - nc to 15, so the routine stops at the slot that is a multiple
 * of 16. n and p serve the portable routine; the others have them built in.
 */
struct tinyaot_dwconv_fast_params;
typedef void tinyaot_dw3x3_fn(const int32_t *records, int8_t *stage, int32_t n,
			      const struct tinyaot_dwconv_fast_params *p);

#define TINYAOT_DW3X3_COLS 9
#define TINYAOT_DW3X3_ROW  (TINYAOT_DW3X3_COLS * TINYAOT_DWCONV_FAST_CHUNK)
#define TINYAOT_DW3X3_OUT  (3 * TINYAOT_DW3X3_ROW)

struct tinyaot_dwconv_fast_params {
	struct tinyaot_conv_dims d; /* k_h = k_w = 3, out_c = in_c % 4 == 0, strides 1 or 2 */
	int32_t group;              /* pixels per group, at most 6 (stride 1) or 4 (stride 2) */
	int32_t zero_point;         /* the input's, read where the window is padded */
	int32_t act_min, act_max;
	tinyaot_dw3x3_fn *block; /* the routine for a group of `group` pixels */
	tinyaot_dw3x3_fn *tail;  /* for the narrower last group of a row; NULL when none */
	const int32_t *records;  /* TINYAOT_DW3X3_RECORD words per channel, or LINE_RECORD */
	int32_t line;            /* 1: line records (the compiler sets it for int8's clamp only) */
};

void tinyaot_dwconv_fast_s8(const struct tinyaot_dwconv_fast_params *p, const int8_t *input,
			    int8_t *output);

/* The block routines. */
tinyaot_dw3x3_fn tinyaot_dw3x3_c;
tinyaot_dw3x3_fn tinyaot_dw3x3_s1_n1;
tinyaot_dw3x3_fn tinyaot_dw3x3_s1_n2;
tinyaot_dw3x3_fn tinyaot_dw3x3_s1_n3;
tinyaot_dw3x3_fn tinyaot_dw3x3_s1_n4;
tinyaot_dw3x3_fn tinyaot_dw3x3_s1_n5;
tinyaot_dw3x3_fn tinyaot_dw3x3_s1_n6;
tinyaot_dw3x3_fn tinyaot_dw3x3_s2_n1;
tinyaot_dw3x3_fn tinyaot_dw3x3_s2_n2;
tinyaot_dw3x3_fn tinyaot_dw3x3_s2_n3;
tinyaot_dw3x3_fn tinyaot_dw3x3_s2_n4;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s1_n1;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s1_n2;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s1_n3;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s1_n4;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s1_n5;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s1_n6;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s2_n1;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s2_n2;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s2_n3;
tinyaot_dw3x3_fn tinyaot_dw3x3_line_s2_n4;

/* The same for cores with the DSP extension (crt/src/thumb2/dw3x3_dsp_routines.S, built where
 * TINYAOT_DSP_KERNELS), on records whose weights are in the DSP layout the compiler writes there
 * and whose line records hold m + 1 for m.
 */
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s1_n1;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s1_n2;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s1_n3;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s1_n4;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s1_n5;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s1_n6;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s2_n1;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s2_n2;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s2_n3;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_s2_n4;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s1_n1;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s1_n2;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s1_n3;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s1_n4;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s1_n5;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s1_n6;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s2_n1;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s2_n2;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s2_n3;
tinyaot_dw3x3_fn tinyaot_dw3x3_dsp_line_s2_n4;

#if TINYAOT_MVE_KERNELS
/* The same with Helium (crt/src/mve/dw3x3_mve_routines.S): any group width, on the vector
 * records the compiler writes there (TINYAOT_DW3X3_RECORD words a channel, line 0), _relu for
 * an output zero point of -128.
 */
tinyaot_dw3x3_fn tinyaot_dw3x3_mve_s1;
tinyaot_dw3x3_fn tinyaot_dw3x3_mve_s2;
tinyaot_dw3x3_fn tinyaot_dw3x3_mve_relu_s1;
tinyaot_dw3x3_fn tinyaot_dw3x3_mve_relu_s2;
#endif

/*
 * DEPTHWISE_CONV_2D int8, depth multiplier 1, any window, stride and padding the 3x3 routines
 * above do not take (1xN and Nx1 windows, 5x5, channels not a multiple of 4): for each output
 * pixel, a pointer per tap of the window (a constant row of the zero point where padded, which
 * the folded bias cancels), then four channels at a time their sums over the taps in registers,
 * and tinyaot/requant.h's requantisation. Element order: pixels in NHW order, per pixel chunks
 * of four channels ascending, each read over the window before its outputs are written; with
 * d.reverse = 1, exactly the reverse. Reads come no later and writes no earlier than in the
 * reference kernel's order (tinyaot_dwconv_s8), whose gaps the compiler keeps.
 */
#define TINYAOT_DWCONV_TAPS_MAX 32

struct tinyaot_dwconv_taps_params {
	struct tinyaot_conv_dims d;
	int32_t act_min, act_max;
	/* 1: the table holds tinyaot_requant_line's words. */
	int32_t line;
	/* in_c bytes of the input zero point, read for padded taps. */
	const int8_t *zero_row;
	/* k_h * k_w taps in (ky, kx) order, in_c weights each. */
	const int8_t *weights;
	/* Per channel: the bias with the input zero point folded in (with line, the line's b
	 * too), then m, h, e - 1 and c of tinyaot_requant_c, or m and h of tinyaot_requant_line.
	 */
	const int32_t *table;
};

void tinyaot_dwconv_taps_s8(const struct tinyaot_dwconv_taps_params *p, const int8_t *input,
			    int8_t *output);

#endif /* TINYAOT_DWCONV_FAST_H_ */
