/*
 * The one-pass block loop of the Helium CONV_2D (crt/src/mve/conv_mve.c,
 * tinyaot_conv_pairs_mve16): every block of four output channels of one pair of pixels, with the
 * eight sums (four channels by two pixels) in one pass over the runs, where
 * conv_blocks_mve.S makes two. VMLADAVA sums into even registers only: r0, r2, r4, r6 for pixel
 * a, r8, r10, r12 and LR for pixel b, so the loop counts with SUBS and not with LE.
 *
 * The weights are in the layout the compiler writes for it: per block, per 16 inputs, the four
 * channels' 16 weights one after the other, then the depth % 16 last ones of each channel (only
 * a window of one run has them: the compiler takes this routine for 1x1 windows and for rows
 * of k_w * in_c a multiple of 16, so that every run is whole steps but the last). One pointer
 * then reads them all with post-increments. Per 16 inputs: two input loads, four weight loads,
 * eight VMLADAVA.S8 (128 multiply-accumulates).
 *
 * The table is the vector table of scripts/tinyaot/fast.py (vector_table), per block five
 * vectors of four channels: the bias with the input offset folded in, the left shift, the
 * multiplier, minus the right shift, the output zero point. The requantisation is TFLite's
 * MultiplyByQuantizedMultiplier lane by lane: VSHL, VQRDMULH (SaturatingRoundingDoublingHighMul,
 * its saturation included), then VRSHL, which rounds half up, with RoundingDivideByPOT's half
 * away from zero for negative values by subtracting 1 from them first (where the shift is not
 * 0: the AND with minus the shift keeps its sign bit only then), as CMSIS-NN's
 * arm_divide_by_power_of_two_mve. The _relu variant leaves that out: its activation clamps
 * every output under the zero point, and those are the only ones the rounding of a negative
 * value reaches.
 *
 * tinyaot_conv_mve16_blocks(job, run, out_a, out_b): every pair of the job (the pair loop of
 * crt/src/mve/conv_mve.c in the routine, where a call per pair cost its frame and setup again),
 * from the first pair's run pointers in run, which it moves on pair by pair, and outputs out_a
 * and out_b; struct tinyaot_pair_job's offsets in tinyaot/asm_layout.h.
 */
#include <tinyaot/asm_layout.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
	.syntax unified
	.thumb

/* The frame: the routine's state across the blocks and pairs. */
#define F_JOB     0
#define F_RUN     4
#define F_RUN_END 8
#define F_OUT_A   12 /* F_OUT_B follows (LDRD) */
#define F_OUT_B   16
#define F_LEFT    20 /* blocks left, this one included; F_HIGH follows (LDRD) */
#define F_HIGH    24 /* the value of F_LEFT at the highest block */
#define F_TABLE   28
#define F_W       32
#define F_N16     36 /* len / 16 */
#define F_TAIL    40 /* len % 16 */
#define F_PAIRS   44 /* pairs left, this one included */
#define F_PAIR_A  48 /* the pair's first outputs; F_PAIR_B follows (LDRD) */
#define F_PAIR_B  52
#define F_SIZE    56

#include "pairs_mve.inc"

/* Four channels' weights (q2, q3 in turn, from r5 on) into the sums of pixels a (q0) and b
 * (q1).
 */
.macro dot4 tail
	dot2 \tail, r0, r8, r2, r10
	dot2 \tail, r4, r12, r6, lr
.endm

.macro dot2 tail, a0, b0, a1, b1
	.if \tail
	vpst
	vldrbt.u8 q2, [r5]
	add r5, r5, r7
	vpst
	vldrbt.u8 q3, [r5]
	add r5, r5, r7
	.else
	vldrb.u8 q2, [r5], #16
	vldrb.u8 q3, [r5], #16
	.endif
	vmladava.s8 \a0, q0, q2
	vmladava.s8 \b0, q1, q2
	vmladava.s8 \a1, q0, q3
	vmladava.s8 \b1, q1, q3
.endm

/* q4 (pixel a) and q5 (pixel b) requantised and clamped, from the table at r9. */
.macro requant fixup
	vldrw.u32 q0, [r9, #16]
	vshl.s32 q4, q4, q0
	vshl.s32 q5, q5, q0
	vldrw.u32 q0, [r9, #32]
	vqrdmulh.s32 q4, q4, q0
	vqrdmulh.s32 q5, q5, q0
	vldrw.u32 q0, [r9, #48]
	.if \fixup
	vand q1, q4, q0
	vand q2, q5, q0
	vshr.s32 q1, q1, #31
	vshr.s32 q2, q2, #31
	vqadd.s32 q4, q4, q1
	vqadd.s32 q5, q5, q2
	.endif
	vrshl.s32 q4, q4, q0
	vrshl.s32 q5, q5, q0
	vldrw.u32 q0, [r9, #64]
	vadd.i32 q4, q4, q0
	vadd.i32 q5, q5, q0
	vmin.s32 q4, q4, q6
	vmin.s32 q5, q5, q6
	vmax.s32 q4, q4, q7
	vmax.s32 q5, q5, q7
.endm

.macro blocks name, fixup
	.pushsection .text.\name,"ax",%progbits
	.p2align 2
	.global \name
	.hidden \name
	.type \name, %function
	.thumb_func
\name:
	push {r4-r11, lr}
	vpush {d8-d15}
	sub sp, sp, #F_SIZE
	pairs_enter
	ldr r4, [r0, #TINYAOT_PAIR_JOB_RUN]
	ldr r5, [r0, #TINYAOT_PAIR_JOB_RUNS_END]
	sub r5, r5, r4
	add r5, r1, r5
	str r5, [sp, #F_RUN_END]
	ldr r6, [r0, #TINYAOT_PAIR_JOB_LEN]
	lsrs r4, r6, #4
	and r5, r6, #15
	strd r4, r5, [sp, #F_N16]
	ldr r4, [r0, #TINYAOT_PAIR_JOB_ACT_MAX]
	vdup.32 q6, r4
	ldr r4, [r0, #TINYAOT_PAIR_JOB_ACT_MIN]
	vdup.32 q7, r4
9:
	/* A pair: its outputs, the first block's weights and table, the blocks' count. */
	ldrd r2, r3, [sp, #F_PAIR_A]
	strd r2, r3, [sp, #F_OUT_A]
	ldr r4, [r0, #TINYAOT_PAIR_JOB_WEIGHTS]
	str r4, [sp, #F_W]
	ldr r4, [r0, #TINYAOT_PAIR_JOB_TABLE]
	str r4, [sp, #F_TABLE]
	/* Forward, the highest block is the last (1 left); in reverse, the first. */
	ldr r4, [r0, #TINYAOT_PAIR_JOB_BLOCKS]
	ldr r5, [r0, #TINYAOT_PAIR_JOB_OUT_STEP]
	mov r6, r4
	cmp r5, #0
	it gt
	movgt r6, #1
	strd r4, r6, [sp, #F_LEFT]
1:
	/* The sums start at the biases. */
	ldr r9, [sp, #F_TABLE]
	ldrd r0, r2, [r9]
	ldrd r4, r6, [r9, #8]
	mov r8, r0
	mov r10, r2
	mov r12, r4
	mov lr, r6
	ldr r9, [sp, #F_RUN]
	ldr r11, [sp, #F_RUN_END]
	ldr r5, [sp, #F_W]
2:
	ldrd r1, r3, [r9], #8
	ldr r7, [sp, #F_N16]
	cbz r7, 4f
3:
	vldrb.u8 q0, [r1], #16
	vldrb.u8 q1, [r3], #16
	dot4 0
	subs r7, r7, #1
	bne 3b
4:
	/* The run's last len % 16 inputs: the loads read nothing past them and give zeros. */
	ldr r7, [sp, #F_TAIL]
	cbz r7, 5f
	vctp.8 r7
	vpstt
	vldrbt.u8 q0, [r1]
	vldrbt.u8 q1, [r3]
	dot4 1
5:
	cmp r9, r11
	bne 2b
	str r5, [sp, #F_W]
	vmov.32 d8[0], r0
	vmov.32 d8[1], r2
	vmov.32 d9[0], r4
	vmov.32 d9[1], r6
	vmov.32 d10[0], r8
	vmov.32 d10[1], r10
	vmov.32 d11[0], r12
	vmov.32 d11[1], lr
	ldr r9, [sp, #F_TABLE]
	requant \fixup
	/* The stores: the highest block's last channels, back bytes early. */
	ldr r0, [sp, #F_JOB]
	ldrd r2, r3, [sp, #F_OUT_A]
	ldrd r4, r5, [sp, #F_LEFT]
	cmp r4, r5
	bne 6f
	ldr r6, [r0, #TINYAOT_PAIR_JOB_LAST]
	ldr r7, [r0, #TINYAOT_PAIR_JOB_BACK]
	vctp.32 r6
	subs r6, r2, r7
	subs r7, r3, r7
	vpstt
	vstrbt.32 q4, [r6]
	vstrbt.32 q5, [r7]
	b 7f
6:
	vstrb.32 q4, [r2]
	vstrb.32 q5, [r3]
7:
	subs r4, r4, #1
	beq 8f
	str r4, [sp, #F_LEFT]
	ldr r6, [r0, #TINYAOT_PAIR_JOB_OUT_STEP]
	add r2, r2, r6
	add r3, r3, r6
	strd r2, r3, [sp, #F_OUT_A]
	ldr r6, [r0, #TINYAOT_PAIR_JOB_TABLE_STEP]
	add r9, r9, r6
	str r9, [sp, #F_TABLE]
	ldr r6, [r0, #TINYAOT_PAIR_JOB_WEIGHTS_STEP]
	ldr r7, [sp, #F_W]
	add r7, r7, r6
	str r7, [sp, #F_W]
	b 1b
8:
	ldr r11, [sp, #F_RUN_END]
	next_pair 9b, 10f, r9, r11
10:
	add sp, sp, #F_SIZE
	vpop {d8-d15}
	pop {r4-r11, pc}
	.size \name, .-\name
	.popsection
.endm

blocks tinyaot_conv_mve16_blocks, 1
blocks tinyaot_conv_mve16_blocks_relu, 0

#endif /* TINYAOT_MVE_KERNELS */

/* No executable stack where the compiler marks every object so (see crt/src/thumb2/). */
#if defined(__linux__) && defined(__ELF__)
	.section .note.GNU-stack, "", %progbits
#endif
