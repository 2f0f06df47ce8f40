/*
 * The block loop of the Helium CONV_2D (crt/src/mve/conv_mve.c): every block of four output
 * channels of one pair of pixels. In C, GCC spilled the loop's pointers, sums and requantisation
 * vectors around each block, 235 instructions of a 1x1 convolution's block besides its dot
 * products; here, about 100.
 *
 * A block is two passes over the runs, each with two channels (0 and 2, then 1 and 3): the four
 * sums of a pass (VMLADAVA sums into even registers only, and LR counts the loop) fill two lanes
 * of each pixel's vector (q4 = d8:d9 for pixel a, q5 for b; one lane a VMOV: the two-lane
 * VMOV assembles with its direction reversed in binutils 2.40). Per 16 inputs, the loads of both pixels' inputs and both channels'
 * weights and four VMLADAVA.S8 (64 multiply-accumulates); a run's len % 16 last inputs are one
 * more step under VCTP, whose loads read nothing past the run and give zeros. The sums are exact
 * int32, and are requantised lane by lane with tinyaot_requant_c or tinyaot_requant_line
 * (tinyaot/requant.h): VMULH gives the upper word of acc * mult and VMUL its lower one, whose sum
 * with the constant's lower word carries into the upper where it wraps.
 *
 * tinyaot_conv_mve_blocks(job, run, out_a, out_b): every pair of the job, from the first pair's
 * run pointers in run (job->runs_end - job->run of them), which it moves on pair by pair, and
 * the first block's outputs out_a and out_b; the job's other fields as for every pair routine
 * (tinyaot/conv_fast.h, offsets in tinyaot/asm_layout.h).
 */
#include <tinyaot/asm_layout.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
	.syntax unified
	.thumb

/* The frame: pixel b's vector while pixel a's is requantised, then the routine's state. */
#define F_VB     0
#define F_JOB    16
#define F_RUN    20
#define F_OUT_A  24
#define F_OUT_B  28
#define F_LEFT   32 /* blocks left, this one included */
#define F_HIGH   36 /* the value of F_LEFT at the highest block */
#define F_TABLE  40
#define F_DEPTH  44
#define F_W_STEP 48 /* 4 * depth + weights_step */
#define F_PAIRS  52 /* pairs left, this one included */
#define F_PAIR_A 56 /* the pair's first outputs; F_PAIR_B follows (LDRD) */
#define F_PAIR_B 60
#define F_SIZE   64

/*
 * The four sums of both pixels (a: r1, b: r3 from each pair of run pointers at r8 on) with the
 * weights at r5 (into r0 for a, r2 for b) and r7 (r4, r6), over every run up to r9. r10 is
 * len / 16, r12 len % 16; r5 and r7 move past the weights read.
 */
.macro dot2
	movs r0, #0
	movs r2, #0
	movs r4, #0
	movs r6, #0
	ldr r8, [sp, #F_RUN]
1:
	ldrd r1, r3, [r8], #8
	wls lr, r10, 3f
2:
	vldrb.u8 q0, [r1], #16
	vldrb.u8 q1, [r3], #16
	vldrb.u8 q2, [r5], #16
	vldrb.u8 q3, [r7], #16
	vmladava.s8 r0, q0, q2
	vmladava.s8 r2, q1, q2
	vmladava.s8 r4, q0, q3
	vmladava.s8 r6, q1, q3
	le lr, 2b
3:
	cmp r12, #0
	beq 4f
	vctp.8 r12
	vpstttt
	vldrbt.u8 q0, [r1]
	vldrbt.u8 q1, [r3]
	vldrbt.u8 q2, [r5]
	vldrbt.u8 q3, [r7]
	vmladava.s8 r0, q0, q2
	vmladava.s8 r2, q1, q2
	vmladava.s8 r4, q0, q3
	vmladava.s8 r6, q1, q3
	add r5, r5, r12
	add r7, r7, r12
4:
	cmp r8, r9
	bne 1b
.endm

#include "pairs_mve.inc"
#include "requant_mve.inc"

/* Clamps q4 to [r6, r7] and stores the lanes of predicate r4 as bytes at \out. */
.macro store out
	vdup.32 q5, r7
	vmin.s32 q4, q4, q5
	vdup.32 q5, r6
	vmax.s32 q4, q4, q5
	vmsr p0, r4
	vpst
	vstrbt.32 q4, [\out]
.endm

	.pushsection .text.tinyaot_conv_mve_blocks,"ax",%progbits
	.p2align 2
	.global tinyaot_conv_mve_blocks
	.hidden tinyaot_conv_mve_blocks
	.type tinyaot_conv_mve_blocks, %function
	.thumb_func
tinyaot_conv_mve_blocks:
	push {r4-r11, lr}
	vpush {d8-d15}
	sub sp, sp, #F_SIZE
	pairs_enter
	ldr r4, [r0, #TINYAOT_PAIR_JOB_RUN]
	ldr r5, [r0, #TINYAOT_PAIR_JOB_RUNS_END]
	sub r5, r5, r4
	add r9, r1, r5
	/* depth = runs * len, runs = (runs_end - run) / 8 bytes */
	ldr r6, [r0, #TINYAOT_PAIR_JOB_LEN]
	lsrs r5, r5, #3
	mul r5, r5, r6
	str r5, [sp, #F_DEPTH]
	ldr r7, [r0, #TINYAOT_PAIR_JOB_WEIGHTS_STEP]
	add r7, r7, r5, lsl #2
	str r7, [sp, #F_W_STEP]
	lsr r10, r6, #4
	and r12, r6, #15
	ldr r7, [r0, #TINYAOT_PAIR_JOB_BLOCKS]
	/* Forward, the highest block is the last (1 left); in reverse, the first. */
	ldr r6, [r0, #TINYAOT_PAIR_JOB_OUT_STEP]
	cmp r6, #0
	it gt
	movgt r7, #1
	str r7, [sp, #F_HIGH]
.Lpair:
	/* A pair: its outputs, the first block's weights and table, the blocks' count. */
	ldrd r2, r3, [sp, #F_PAIR_A]
	strd r2, r3, [sp, #F_OUT_A]
	ldr r11, [r0, #TINYAOT_PAIR_JOB_WEIGHTS]
	ldr r7, [r0, #TINYAOT_PAIR_JOB_TABLE]
	str r7, [sp, #F_TABLE]
	ldr r7, [r0, #TINYAOT_PAIR_JOB_BLOCKS]
	str r7, [sp, #F_LEFT]
.Lblock:
	ldr r6, [sp, #F_DEPTH]
	mov r5, r11
	add r7, r11, r6, lsl #1
	dot2
	vmov.32 d8[0], r0
	vmov.32 d9[0], r4
	vmov.32 d10[0], r2
	vmov.32 d11[0], r6
	ldr r6, [sp, #F_DEPTH]
	add r5, r11, r6
	add r7, r5, r6, lsl #1
	dot2
	vmov.32 d8[1], r0
	vmov.32 d9[1], r4
	vmov.32 d10[1], r2
	vmov.32 d11[1], r6
	/* The biases, then the stores: the highest block's last channels, back bytes early. */
	ldr r8, [sp, #F_TABLE]
	vldrw.u32 q0, [r8]
	vadd.i32 q4, q4, q0
	vadd.i32 q5, q5, q0
	vstrw.32 q5, [sp, #F_VB]
	ldr r0, [sp, #F_JOB]
	ldr r2, [sp, #F_OUT_A]
	ldr r3, [sp, #F_OUT_B]
	ldr r1, [sp, #F_LEFT]
	ldr r5, [sp, #F_HIGH]
	movs r4, #4
	cmp r1, r5
	bne 5f
	ldr r4, [r0, #TINYAOT_PAIR_JOB_LAST]
	ldr r5, [r0, #TINYAOT_PAIR_JOB_BACK]
	subs r2, r2, r5
	subs r3, r3, r5
5:
	vctp.32 r4
	vmrs r4, p0
	ldr r6, [r0, #TINYAOT_PAIR_JOB_ACT_MIN]
	ldr r7, [r0, #TINYAOT_PAIR_JOB_ACT_MAX]
	ldr r5, [r0, #TINYAOT_PAIR_JOB_LINE]
	add r8, r8, #16
	movs r1, #1
	cmp r5, #0
	bne .Lline
	vld40.32 {q0, q1, q2, q3}, [r8]
	vld41.32 {q0, q1, q2, q3}, [r8]
	vld42.32 {q0, q1, q2, q3}, [r8]
	vld43.32 {q0, q1, q2, q3}, [r8]
	vneg.s32 q2, q2
	requant_c r1
	store r2
	vldrw.u32 q4, [sp, #F_VB]
	requant_c r1
	store r3
	b .Lnext
.Lline:
	vld20.32 {q0, q1}, [r8]
	vld21.32 {q0, q1}, [r8]
	requant_line r1
	store r2
	vldrw.u32 q4, [sp, #F_VB]
	requant_line r1
	store r3
.Lnext:
	ldr r5, [sp, #F_W_STEP]
	add r11, r11, r5
	ldr r5, [r0, #TINYAOT_PAIR_JOB_TABLE_STEP]
	ldr r8, [sp, #F_TABLE]
	add r8, r8, r5
	str r8, [sp, #F_TABLE]
	ldr r5, [r0, #TINYAOT_PAIR_JOB_OUT_STEP]
	ldr r2, [sp, #F_OUT_A]
	ldr r3, [sp, #F_OUT_B]
	add r2, r2, r5
	add r3, r3, r5
	str r2, [sp, #F_OUT_A]
	str r3, [sp, #F_OUT_B]
	ldr r1, [sp, #F_LEFT]
	subs r1, r1, #1
	str r1, [sp, #F_LEFT]
	bne .Lblock
	next_pair .Lpair, 9f, r8, r9
9:
	add sp, sp, #F_SIZE
	vpop {d8-d15}
	pop {r4-r11, pc}
	.size tinyaot_conv_mve_blocks, .-tinyaot_conv_mve_blocks
	.popsection

#endif /* TINYAOT_MVE_KERNELS */

/* No executable stack where the compiler marks every object so (see crt/src/thumb2/). */
#if defined(__linux__) && defined(__ELF__)
	.section .note.GNU-stack, "", %progbits
#endif
