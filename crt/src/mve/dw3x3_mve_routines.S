/*
 * The block routines of tinyaot/dwconv_fast.h with Helium (Cortex-M55): tinyaot_dw3x3_mve_s1,
 * _s2, _relu_s1 and _relu_s2, for a group of any width on the vector records (the Thumb-2
 * routines' contract: the clamp of all of int8, the stage's geometry of crt/src/dwconv_fast.c).
 *
 * Four channels are the four int32 lanes: a stage slot's four consecutive channels are one
 * widening VLDRB. The records are laid out for them (scripts/tinyaot/ops/depthwise_conv_2d.py,
 * dw3x3_vector_records): per four channels, each tap's four weights in a word, then the vectors
 * of fast.vector_table, so that a tap's weights are one widening load and nothing is gathered.
 * All of the group's outputs (up to six, their sums in q0-q5) are computed together: per tap
 * one load of its weights and, per output, one load of the inputs, a VMUL and a VADD, 19
 * instructions for 24 MACs at six outputs (Helium multiplies vectors lane by lane but
 * accumulates only across lanes or by a scalar). The sums are exact int32, with the bias (input
 * zero point folded in) as their start, and are requantised lane by lane as TFLite's
 * MultiplyByQuantizedMultiplier, as crt/src/mve/conv_quads_mve.S does (the _relu routines for a
 * zero point of -128, where the clamp hides the rounding of negative values). Then VMIN and VMAX
 * clamp to int8.
 */
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
	.syntax unified
	.thumb

/* The stage (crt/src/dwconv_fast.c checks it): rows 144 bytes apart, slots of 16, outputs at
 * 432. The vector records: 32 words per four channels, the nine weight words, then the bias,
 * the left shift, the multiplier, minus the right shift and the output zero point, four words
 * each.
 */
#define ROW    144
#define SLOT   16
#define OUT    432
#define R_BIAS 36
#define R_LEFT 52
#define R_MULT 68
#define R_RNEG 84
#define R_ZP   100
#define RECORD 128

/* Sum j (q0 to q5) += the inputs of tap (ky, kx) of output j times q6. Rows at r0, r1, r2; at
 * stride 2, outputs 2 and 3 read from r3, r4, r5 (the same rows, 64 bytes on), so that every
 * offset fits the load's 7 bits (a widening load's base is a low register).
 */
.macro tap_output j, ky, kx, s
	.if (\j * \s + \kx) * SLOT > 127
		.if \ky == 0
			vldrb.s32 q7, [r3, #((\j * \s + \kx) * SLOT - 64)]
		.elseif \ky == 1
			vldrb.s32 q7, [r4, #((\j * \s + \kx) * SLOT - 64)]
		.else
			vldrb.s32 q7, [r5, #((\j * \s + \kx) * SLOT - 64)]
		.endif
	.else
		.if \ky == 0
			vldrb.s32 q7, [r0, #((\j * \s + \kx) * SLOT)]
		.elseif \ky == 1
			vldrb.s32 q7, [r1, #((\j * \s + \kx) * SLOT)]
		.else
			vldrb.s32 q7, [r2, #((\j * \s + \kx) * SLOT)]
		.endif
	.endif
	vmul.i32 q7, q7, q6
	vadd.i32 q\j, q\j, q7
.endm

.macro tap n, ky, kx, s
	vldrb.s32 q6, [r7, #(4 * (3 * \ky + \kx))]
	.irp j, 0, 1, 2, 3, 4, 5
	.if \j < \n
	tap_output \j, \ky, \kx, \s
	.endif
	.endr
.endm

/* Applies \op qj, qj, q6 to the sums j < n. */
.macro each n, op
	.irp j, 0, 1, 2, 3, 4, 5
	.if \j < \n
	\op q\j, q\j, q6
	.endif
	.endr
.endm

/* Outputs j < n of the block whose first window column is r6, the records at r7, the outputs
 * at r9 + OUT (r0-r5 scratch).
 */
.macro block n, s, fixup
	mov r0, r6
	add r1, r6, #ROW
	add r2, r6, #(2 * ROW)
	.if \s == 2
	add r3, r6, #64
	add r4, r6, #(ROW + 64)
	add r5, r6, #(2 * ROW + 64)
	.endif
	vldrw.u32 q0, [r7, #R_BIAS]
	.irp j, 1, 2, 3, 4, 5
	.if \j < \n
	vmov q\j, q0
	.endif
	.endr
	.irp ky, 0, 1, 2
	.irp kx, 0, 1, 2
	tap \n, \ky, \kx, \s
	.endr
	.endr
	vldrw.u32 q6, [r7, #R_LEFT]
	each \n, vshl.s32
	vldrw.u32 q6, [r7, #R_MULT]
	each \n, vqrdmulh.s32
	vldrw.u32 q6, [r7, #R_RNEG]
	.if \fixup
	.irp j, 0, 1, 2, 3, 4, 5
	.if \j < \n
	vand q7, q\j, q6
	vshr.s32 q7, q7, #31
	vqadd.s32 q\j, q\j, q7
	.endif
	.endr
	.endif
	each \n, vrshl.s32
	vldrw.u32 q6, [r7, #R_ZP]
	each \n, vadd.i32
	vmov.i32 q6, #127
	each \n, vmin.s32
	vmvn.i32 q6, #127
	each \n, vmax.s32
	add r0, r9, #OUT
	.irp j, 0, 1, 2, 3, 4, 5
	.if \j < \n
	vstrb.32 q\j, [r0, #(SLOT * \j)]
	.endif
	.endr
.endm

/* tinyaot_dw3x3_fn: r0 the records, r1 the stage, r2 the group's outputs. */
.macro dw3x3_mve name, s, fixup
	.pushsection .text.\name,"ax",%progbits
	.p2align 2
	.global \name
	.type \name, %function
	.thumb_func
\name:
	push {r4-r10, lr}
	vpush {d8-d15}
	/* r7 the four channels' records, r9 their slot, r10 the group's outputs. */
	mov r7, r0
	mov r9, r1
	mov r10, r2
1:
	/* One block for the group: r6 its first window column. */
	mov r6, r9
	.if \s == 1
	cmp r10, #6
	beq 16f
	cmp r10, #5
	beq 15f
	.endif
	cmp r10, #4
	beq 14f
	cmp r10, #3
	beq 13f
	cmp r10, #2
	beq 12f
	block 1, \s, \fixup
	b 7f
12:
	block 2, \s, \fixup
	b 7f
13:
	block 3, \s, \fixup
	b 7f
14:
	block 4, \s, \fixup
	.if \s == 1
	b 7f
15:
	block 5, \s, \fixup
	b 7f
16:
	block 6, \s, \fixup
	.endif
7:
	/* The next four channels, up to the chunk's end (a slot that is a multiple of 16). */
	add r7, r7, #RECORD
	add r9, r9, #4
	tst r9, #15
	bne 1b
	vpop {d8-d15}
	pop {r4-r10, pc}
	.size \name, .-\name
	.popsection
.endm

dw3x3_mve tinyaot_dw3x3_mve_s1, 1, 1
dw3x3_mve tinyaot_dw3x3_mve_s2, 2, 1
dw3x3_mve tinyaot_dw3x3_mve_relu_s1, 1, 0
dw3x3_mve tinyaot_dw3x3_mve_relu_s2, 2, 0

#endif /* TINYAOT_MVE_KERNELS */

/* No executable stack where the compiler marks every object so (see crt/src/thumb2/). */
#if defined(__linux__) && defined(__ELF__)
	.section .note.GNU-stack, "", %progbits
#endif
