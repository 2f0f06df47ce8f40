/*
 * The block routines of tinyaot/dwconv_fast.h with Helium (Cortex-M55): tinyaot_dw3x3_mve_s1,
 * _s2, _line_s1 and _line_s2, for a group of any width on the default records (the Thumb-2
 * routines' contract: the clamp of all of int8, the stage's geometry of crt/src/dwconv_fast.c).
 *
 * Four channels are the four int32 lanes: a stage slot's four consecutive channels are one
 * widening VLDRB. Per four channels, the records' nine weights and requantisation words are
 * gathered once (VLDRB and VLDRW gathers at a record's stride) into the frame, then all of the
 * group's outputs (up to six, their sums in q0-q5) are computed together: per tap one load of
 * its weights and, per output, one load of the inputs, a VMUL and a VADD, 19 instructions for
 * 24 MACs at six outputs (Helium multiplies vectors lane by lane but accumulates only across
 * lanes or by a scalar). The sums are exact int32, with the bias (input zero point folded in)
 * as their start, and are requantised lane by lane as tinyaot_requant_c or tinyaot_requant_line
 * (tinyaot/requant.h): VMULH gives the upper word of acc * m, VMUL its lower one, whose sum with
 * the constant's lower word carries into the upper where it wraps. Then VMIN and VMAX clamp to
 * int8.
 */
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
	.syntax unified
	.thumb

/* The stage (crt/src/dwconv_fast.c checks it): rows 144 bytes apart, slots of 16, outputs at
 * 432. Records of 8 words (6 with line). The frame: the nine weight vectors, then the bias,
 * m, h, -(e - 1) and c vectors, then the sums of a block.
 */
#define ROW    144
#define SLOT   16
#define OUT    432
#define F_W    0
#define F_BIAS 144
#define F_M    160
#define F_H    176
#define F_E    192
#define F_C    208
#define F_ACC  224
#define F_SIZE 320

#include "requant_mve.inc"

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
	vldrw.u32 q6, [sp, #(F_W + SLOT * (3 * \ky + \kx))]
	.irp j, 0, 1, 2, 3, 4, 5
	.if \j < \n
	tap_output \j, \ky, \kx, \s
	.endif
	.endr
.endm

/* Outputs j < n of the block whose first window column is r6 and first output r7 (r0-r5
 * scratch).
 */
.macro block n, s, line
	mov r0, r6
	add r1, r6, #ROW
	add r2, r6, #(2 * ROW)
	.if \s == 2
	add r3, r6, #64
	add r4, r6, #(ROW + 64)
	add r5, r6, #(2 * ROW + 64)
	.endif
	vldrw.u32 q0, [sp, #F_BIAS]
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
	.irp j, 0, 1, 2, 3, 4, 5
	.if \j < \n
	vstrw.32 q\j, [sp, #(F_ACC + SLOT * \j)]
	.endif
	.endr
	vldrw.u32 q0, [sp, #F_M]
	vldrw.u32 q1, [sp, #F_H]
	.if \line == 0
	vldrw.u32 q2, [sp, #F_E]
	vldrw.u32 q3, [sp, #F_C]
	.else
	vmov.i32 q6, #127
	vmvn.i32 q7, #127
	.endif
	.irp j, 0, 1, 2, 3, 4, 5
	.if \j < \n
	vldrw.u32 q4, [sp, #(F_ACC + SLOT * \j)]
	.if \line == 0
	requant_c r12
	vmov.i32 q5, #127
	vmin.s32 q4, q4, q5
	vmvn.i32 q5, #127
	vmax.s32 q4, q4, q5
	.else
	requant_line r12
	vmin.s32 q4, q4, q6
	vmax.s32 q4, q4, q7
	.endif
	vstrb.32 q4, [r7, #(SLOT * \j)]
	.endif
	.endr
.endm

/* tinyaot_dw3x3_fn: r0 the records, r1 the stage, r2 the group's outputs. */
.macro dw3x3_mve name, s, line
	.pushsection .text.\name,"ax",%progbits
	.p2align 2
	.global \name
	.type \name, %function
	.thumb_func
\name:
	push {r4-r10, lr}
	vpush {d8-d15}
	sub sp, sp, #F_SIZE
	/* r8 the records, r9 the four channels' slot, r10 the group's outputs; r12 = 1. */
	mov r8, r0
	mov r9, r1
	mov r10, r2
	mov r12, #1
1:
	/* Byte (q7) and word (q6) offsets of the four channels' records; the blocks use both
	 * registers.
	 */
	movs r4, #0
	vidup.u32 q7, r4, #1
	.if \line
	movs r4, #24
	.else
	movs r4, #32
	.endif
	vmul.i32 q7, q7, r4
	vshr.u32 q6, q7, #2
	/* Gather the four channels' weights (bytes 4 to 12 of each record) and words. */
	add r5, r8, #4
	.irp k, 0, 1, 2, 3, 4, 5, 6, 7, 8
	vldrb.s32 q0, [r5, q7]
	vstrw.32 q0, [sp, #(F_W + SLOT * \k)]
	adds r5, r5, #1
	.endr
	vldrw.u32 q0, [r8, q6, uxtw #2]
	vstrw.32 q0, [sp, #F_BIAS]
	add r5, r8, #16
	vldrw.u32 q0, [r5, q6, uxtw #2]
	vstrw.32 q0, [sp, #F_M]
	adds r5, r5, #4
	vldrw.u32 q0, [r5, q6, uxtw #2]
	vstrw.32 q0, [sp, #F_H]
	.if \line == 0
	adds r5, r5, #4
	vldrw.u32 q0, [r5, q6, uxtw #2]
	vneg.s32 q0, q0
	vstrw.32 q0, [sp, #F_E]
	adds r5, r5, #4
	vldrw.u32 q0, [r5, q6, uxtw #2]
	vstrw.32 q0, [sp, #F_C]
	.endif
	/* One block for the group: r6 its first window column, r7 its first output. */
	mov r6, r9
	add r7, r9, #OUT
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
	block 1, \s, \line
	b 7f
12:
	block 2, \s, \line
	b 7f
13:
	block 3, \s, \line
	b 7f
14:
	block 4, \s, \line
	.if \s == 1
	b 7f
15:
	block 5, \s, \line
	b 7f
16:
	block 6, \s, \line
	.endif
7:
	/* The next four channels, up to the chunk's end (a slot that is a multiple of 16). */
	.if \line
	add r8, r8, #(4 * 24)
	.else
	add r8, r8, #(4 * 32)
	.endif
	add r9, r9, #4
	tst r9, #15
	bne 1b
	add sp, sp, #F_SIZE
	vpop {d8-d15}
	pop {r4-r10, pc}
	.size \name, .-\name
	.popsection
.endm

dw3x3_mve tinyaot_dw3x3_mve_s1, 1, 0
dw3x3_mve tinyaot_dw3x3_mve_s2, 2, 0
dw3x3_mve tinyaot_dw3x3_mve_line_s1, 1, 1
dw3x3_mve tinyaot_dw3x3_mve_line_s2, 2, 1

#endif /* TINYAOT_MVE_KERNELS */

/* No executable stack where the compiler marks every object so (see crt/src/thumb2/). */
#if defined(__linux__) && defined(__ELF__)
	.section .note.GNU-stack, "", %progbits
#endif
