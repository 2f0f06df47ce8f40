/*
 * The int8 3x3 DEPTHWISE_CONV_2D block routines of tinyaot/dwconv_fast.h for cores with the DSP
 * extension (tinyaot_dw3x3_dsp_*): the same stage, groups and requantisation as the Thumb-2 ones
 * (thumb2/dw3x3_routines.S), with two products per SMLAD. Per channel, rows 0 and 1 of each
 * window column are packed into one register, (x0, x1) by PKHBT, which meets the halfword
 * pair (w0k, w1k) of every output that reads the column; row 2's columns are packed in pairs
 * (x[j], x[j + 1]) for even j, which meet (w20, w21) where the pair starts an output's window
 * and (w21, w22) where it ends one, the odd one out taking SMLABT or SMLATB. Line records are
 * requantised by SMMLA, 3 instructions per output (thumb2/dw3x3_block.inc, tdw_line_mm). With
 * them, 97 instructions per channel at stride 1 and six outputs (54 multiply-accumulates) where
 * the MLA routine takes 115, 85 at stride 2 and four (36) where it takes 92.
 *
 * The records (tinyaot/dwconv_fast.h) keep their size, with the weights in the DSP layout the
 * compiler writes where TINYAOT_DSP_KERNELS (scripts/tinyaot/ops/depthwise_conv_2d.py,
 * dw3x3_dsp_records): bytes w00 w01 w10 w11, then w02 w20 w12 w21, then w21 0 w22 0, so that
 * SXTB16 gives (w00, w10), (w01, w11) (rotated by 8), (w02, w12), (w20, w21) (rotated) and
 * (w21, w22); line records hold m + 1 for m.
 */
#include <tinyaot/isa.h>

#if TINYAOT_DSP_KERNELS
	.syntax unified
	.thumb

/*
 * Per channel (thumb2/dw3x3_block.inc: the function around it, the requantisation): r1 the bias,
 * which the first product of every accumulator adds, r2-r7 the accumulators, r8-r10 the weight
 * pairs of rows 0 and 1 (then r8 and r9 those of row 2), r11 and ip the packed inputs.
 */
.altmacro
.macro tdsp_smlad acc, x, w, add
	smlad r&acc, r&x, r&w, r&add
.endm
/* Rows 0 and 1 of column col packed in r11, into every output whose window holds it. */
.macro tdsp_rows01 n, s, col
	ldrsb r11, [lr, #(col * 16)]
	ldrsb ip, [lr, #(144 + col * 16)]
	pkhbt r11, r11, ip, lsl #16
	.set tdsp_i, 0
	.rept n
	.set tdsp_k, col - tdsp_i * s
	.if (tdsp_k >= 0) && (tdsp_k <= 2)
	.if tdsp_k == 0
	tdsp_smlad %(2 + tdsp_i), 11, 8, 1
	.else
	tdsp_smlad %(2 + tdsp_i), 11, %(8 + tdsp_k), %(2 + tdsp_i)
	.endif
	.endif
	.set tdsp_i, tdsp_i + 1
	.endr
.endm
/* The products of one output and row 2's pair starting at column j (in r11): its window starts
 * at column c0. r8 = (w20, w21), r9 = (w21, w22).
 */
.macro tdsp_row2_mac acc, c0, j
	.if c0 == j
	smlad r&acc, r11, r8, r&acc
	.elseif c0 == j - 2
	smlabt r&acc, r11, r9, r&acc
	.elseif c0 == j - 1
	smlad r&acc, r11, r9, r&acc
	.elseif c0 == j + 1
	smlatb r&acc, r11, r8, r&acc
	.endif
.endm
/* Row 2's pair (x[j], x[j + 1]) in r11, the second column only where an output reads it. */
.macro tdsp_row2 n, s, j
	ldrsb r11, [lr, #(288 + j * 16)]
	.if j + 1 <= (n - 1) * s + 2
	ldrsb ip, [lr, #(288 + j * 16 + 16)]
	pkhbt r11, r11, ip, lsl #16
	.endif
	.set tdsp_i, 0
	.rept n
	tdsp_row2_mac %(2 + tdsp_i), %(tdsp_i * s), j
	.set tdsp_i, tdsp_i + 1
	.endr
.endm
#include "dw3x3_block.inc"
.macro tdsp_fn name, n, s, line
	tdw_begin \name
	ldrd r8, r10, [r0, #-12]
	sxtb16 r9, r8, ror #8
	sxtb16 r8, r8
	sxtb16 r10, r10
	.set tdsp_col, 0
	.rept (n - 1) * s + 3
	tdsp_rows01 n, s, %tdsp_col
	.set tdsp_col, tdsp_col + 1
	.endr
	ldrd r8, r9, [r0, #-8]
	sxtb16 r8, r8, ror #8
	sxtb16 r9, r9
	.set tdsp_col, 0
	.rept ((n - 1) * s + 4) / 2
	tdsp_row2 n, s, %tdsp_col
	.set tdsp_col, tdsp_col + 2
	.endr
	tdw_end \name, n, line
.endm
	tdsp_fn tinyaot_dw3x3_dsp_s1_n1, 1, 1, 0
	tdsp_fn tinyaot_dw3x3_dsp_s1_n2, 2, 1, 0
	tdsp_fn tinyaot_dw3x3_dsp_s1_n3, 3, 1, 0
	tdsp_fn tinyaot_dw3x3_dsp_s1_n4, 4, 1, 0
	tdsp_fn tinyaot_dw3x3_dsp_s1_n5, 5, 1, 0
	tdsp_fn tinyaot_dw3x3_dsp_s1_n6, 6, 1, 0
	tdsp_fn tinyaot_dw3x3_dsp_s2_n1, 1, 2, 0
	tdsp_fn tinyaot_dw3x3_dsp_s2_n2, 2, 2, 0
	tdsp_fn tinyaot_dw3x3_dsp_s2_n3, 3, 2, 0
	tdsp_fn tinyaot_dw3x3_dsp_s2_n4, 4, 2, 0
	tdsp_fn tinyaot_dw3x3_dsp_line_s1_n1, 1, 1, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s1_n2, 2, 1, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s1_n3, 3, 1, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s1_n4, 4, 1, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s1_n5, 5, 1, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s1_n6, 6, 1, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s2_n1, 1, 2, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s2_n2, 2, 2, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s2_n3, 3, 2, 2
	tdsp_fn tinyaot_dw3x3_dsp_line_s2_n4, 4, 2, 2
.noaltmacro

#endif /* TINYAOT_DSP_KERNELS */

/* No executable stack where the compiler marks every object so (see thumb2/dw3x3_routines.S). */
#if defined(__linux__) && defined(__ELF__)
	.section .note.GNU-stack, "", %progbits
#endif
