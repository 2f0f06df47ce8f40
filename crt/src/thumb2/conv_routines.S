/*
 * The int8 CONV_2D routines of tinyaot/conv_fast.h for Thumb-2 (Cortex-M3 and up), and the pair
 * routine for cores with the DSP extension. crt/src/conv_fast.c holds the portable C they
 * replace and checks the job's layout that tinyaot/asm_layout.h gives them.
 */
#include <tinyaot/asm_layout.h>
#include <tinyaot/isa.h>

#if TINYAOT_ASM_THUMB2
	.syntax unified
	.thumb

/*
 * Thumb-2 (Cortex-M3 and up). The eight accumulators, both input pointers, the weights
 * pointer and three operands take all fourteen registers, which no C compiler allocates
 * without spilling in the loop; so the loop is written out. One input step is 14
 * instructions for 8 multiply-accumulates (2 input loads, 4 weight loads, 8 MLA), unrolled 32
 * times; a run enters the loop len mod 32 steps before its end, so that every pass ends on the
 * loop's one test. Requantising a channel of both pixels is 13 in tinyaot_conv_pairs (one LDM
 * of its four words, then tinyaot_requant_c() twice, see tinyaot/requant.h, with the output
 * saturated by SSAT), or 8 in tinyaot_conv_pairs_line (an LDM of m and h, then SMLAL, SSAT
 * and STRB per pixel, h loaded again for the second, tinyaot_requant_line()). Each of the two
 * holds its requantisation in its own section and enters the shared body with its address in
 * ip, so a model links only the one it names.
 *
 * In the loop: r4-r7 pixel a's accumulators, r8-r11 pixel b's, r1 a, r2 b, r3 weights, r0 a's
 * byte, ip b's byte, lr a weight. Everything else lives in a frame below the saved registers,
 * set up once per job, including where to go at each branch that depends only on the job (how
 * the run enters the loop; one run or several; forward or reverse), so that a block pays
 * for none of those tests. The frame, offsets from sp:
 *
 *   t          0  the block's table, then out_a and out_b (an LDM or STM from sp)
 *   tlast     12  the last block's table: the LDM of t, out_a and out_b loads it too, and
 *                 the requantisation sets no flags, so the test for the last block is one CMP
 *   tback     20  reverse: added to the table after a block, back to the one before it
 *   req       24  the requantisation of the job's table: sign (requant_c) or line
 *   wstep     28  weights_step
 *   a0, b0    32  one run only: its two pointers
 *   end       40  a's address where the current run ends
 *   run0      48  the first run's pair of pointers
 *   next      52  the next run's pair of pointers, then where the runs end (one LDRD)
 *   runs_end  56
 *   entry     60  where a run starts in the loop
 *   nextrun   68  after a run: the next run, or the requantisation
 *   start     72  a block's first run: the only one (its entry), or the first of several
 *   adj       76  after the requantisation: forward, or reverse
 *   pairs     80  the pairs left, then pair_step, pair_out
 *   t0        92  the first block's table
 *   oa0, ob0  96  the current pair's first outputs
 *   w0       104  the first block's weights
 *   off      108  added to the runs' pointers: pair_step times the pairs done, then the run
 *   len      112  length (one LDRD)
 *   job      116  the job
 *   cur      120  the _part routines: how far the current block's outputs lie before its place
 */

.equ pair_t, 0
.equ pair_tlast, 12
.equ pair_run0, 48
.equ pair_tback, 20
.equ pair_req, 24
/* Every instruction of pair_step has a 32-bit encoding. */
.equ pair_step_bytes, 56
.equ pair_wstep, 28
.equ pair_a0, 32
.equ pair_end, 40
.equ pair_next, 52
.equ pair_runs_end, 56
.equ pair_entry, 60
.equ pair_nextrun, 68
.equ pair_start, 72
.equ pair_adj, 76
.equ pair_pairs, 80
.equ pair_pstep, 84
.equ pair_pout, 88
.equ pair_t0, 92
.equ pair_oa0, 96
.equ pair_w0, 104
.equ pair_off, 108
.equ pair_len, 112
.equ pair_job, 116
.equ pair_cur, 120
.equ pair_frame, 124
/* Stores the address of a local label, with the Thumb bit, at a frame offset. */
.macro pair_set off, label
	adr r4, \label
	orr r4, r4, #1
	str r4, [sp, #\off]
.endm
.macro pair_step
	ldrsb r0, [r1], #1
	ldrsb ip, [r2], #1
	ldrsb lr, [r3], #1
	mla r4, lr, r0, r4
	mla r8, lr, ip, r8
	ldrsb lr, [r3], #1
	mla r5, lr, r0, r5
	mla r9, lr, ip, r9
	ldrsb lr, [r3], #1
	mla r6, lr, r0, r6
	mla r10, lr, ip, r10
	ldrsb lr, [r3], #1
	mla r7, lr, r0, r7
	mla r11, lr, ip, r11
.endm
/* One channel of both pixels: accumulators a and b; r0 walks the table, r1 and r2 point
 * at the outputs. The channel's m, h, e - 1 and c go to four free registers in ascending
 * order (LDM), ip and lr are the low words; c then takes a's upper word, h b's.
 */
.macro pair_requant a, b, m, h, e, c
	ldmia r0!, {\m, \h, \e, \c}
	eor ip, \c, \a, asr #31
	eor lr, \c, \b, asr #31
	add \c, \h, \a, asr #31
	add \h, \h, \b, asr #31
	smlal ip, \c, \a, \m
	smlal lr, \h, \b, \m
	asr \c, \c, \e
	asr \h, \h, \e
	ssat \c, #8, \c
	ssat \h, #8, \h
	strb \c, [r1], #1
	strb \h, [r2], #1
.endm
/* The same with a line table: the channel's m to ip, h to lr, and h again for b. */
.macro pair_line a, b
	ldmia r0!, {ip, lr}
	smlal \a, lr, \a, ip
	ssat lr, #8, lr, asr #2
	strb lr, [r1], #1
	ldr lr, [r0, #-4]
	smlal \b, lr, \b, ip
	ssat lr, #8, lr, asr #2
	strb lr, [r2], #1
.endm
/* Entry: the frame, and the job's fields that do not change (see above). r1 run,
 * r2 runs_end, r3 len, r4 weights, r5 weights_step, r6 table, r7 table_step, r8 out_a,
 * r9 out_b, r10 out_step, r11 blocks; r1-r7 stay as loaded.
 */
.macro pair_enter frame, req
	push {r4-r11, lr}
	sub sp, sp, #\frame
	.ifnb \req
	orr ip, ip, #1
	str ip, [sp, #pair_req]
	.endif
	ldm r0, {r1-r11}
	str r0, [sp, #pair_job]
	str r1, [sp, #pair_run0]
	str r2, [sp, #pair_runs_end]
	str r5, [sp, #pair_wstep]
	stm sp, {r6, r8, r9}
	sub ip, r11, #1
	mla ip, r7, ip, r6
	str ip, [sp, #pair_tlast]
	str r6, [sp, #pair_t0]
	str r4, [sp, #pair_w0]
	strd r8, r9, [sp, #pair_oa0]
	ldr ip, [r0, #TINYAOT_PAIR_JOB_PAIRS]
	str ip, [sp, #pair_pairs]
	ldr ip, [r0, #TINYAOT_PAIR_JOB_PAIR_STEP]
	str ip, [sp, #pair_pstep]
	ldr ip, [r0, #TINYAOT_PAIR_JOB_PAIR_OUT]
	str ip, [sp, #pair_pout]
	movs ip, #0
	str ip, [sp, #pair_off]
	lsl ip, r7, #1
	str ip, [sp, #pair_tback]
.endm
/* One run (pointwise, or a copied window) or several: where a block's runs start
 * (single, multi; no single: the caller sets it) and where to go after a run (the frame
 * slot after_single, the label after_multi). One run's pointers, and where it ends (r3
 * bytes on, stored at pair_end), are the same every block.
 */
.macro pair_runs single, after_single, multi, after_multi
	sub r5, r2, r1
	cmp r5, #8
	bne 1f
	ldm r1, {r4, r5}
	strd r4, r5, [sp, #pair_a0]
	add r4, r4, r3
	str r4, [sp, #pair_end]
	ldr r4, [sp, #\after_single]
	str r4, [sp, #pair_nextrun]
	.ifnb \single
	pair_set pair_start, \single
	.endif
	b 2f
1:
	pair_set pair_nextrun, \after_multi
	pair_set pair_start, \multi
2:
.endm
/* The next of several runs, r0 its pair of pointers: r1, r2, where it ends, then in. */
.macro pair_next_run
	ldmia r0!, {r1, r2}
	str r0, [sp, #pair_next]
	ldrd ip, lr, [sp, #pair_off]
	add r1, r1, ip
	add r2, r2, ip
	add lr, r1, lr
	str lr, [sp, #pair_end]
	ldr pc, [sp, #pair_entry]
.endm
/* r0 the block's table, r1 and r2 its outputs, ip the last block's table, as pair_finish
 * loads them; with part (the _part routines), the highest block's outputs job->back bytes
 * before its place, the shift kept at cur for pair_unshift.
 */
.macro pair_shift part
	.if \part
	ldr ip, [sp, #pair_job]
	ldr lr, [ip, #TINYAOT_PAIR_JOB_HIGH]
	ldr ip, [ip, #TINYAOT_PAIR_JOB_BACK]
	ldr r0, [sp, #pair_t]
	cmp r0, lr
	it ne
	movne ip, #0
	str ip, [sp, #pair_cur]
	ldrd r1, r2, [sp, #4]
	sub r1, r1, ip
	sub r2, r2, ip
	ldr ip, [sp, #pair_tlast]
	.else
	ldm sp, {r0-r2, ip}
	.endif
.endm
/* The outputs back at the block's place after its stores (ip is free). */
.macro pair_unshift part
	.if \part
	ldr ip, [sp, #pair_cur]
	add r1, r1, ip
	add r2, r2, ip
	.endif
.endm
/* The block's eight accumulators in r4-r11 requantised and stored (tinyaot_requant_c),
 * then on to pair_tail's rev or fwd.
 */
.macro pair_finish part=0
	pair_shift \part
	cmp r0, ip
	add r0, r0, #16

/* Channel 0 needs six free registers: the weights pointer and three of pixel b's
 * accumulators wait on the stack until enough are free again.
 */
	push {r3, r9-r11}
	pair_requant r4, r8, r3, r9, r10, r11
	ldr r9, [sp, #4]
	pair_requant r5, r9, r3, r4, r8, r10
	ldrd r10, r11, [sp, #8]
	pair_requant r6, r10, r3, r4, r8, r9
	pair_requant r7, r11, r3, r4, r5, r6
	ldr r3, [sp], #16
	pair_unshift \part

/* Forward, the table, outputs and weights already point at the next block; reverse,
 * they step back over two. Nothing from the CMP with tlast on sets the flags.
 */
	ldr pc, [sp, #pair_adj]
.endm
/* After the requantisation, the next block, the next pair or the return: rev and fwd
 * name the two ways on, block the block's start, pair where a new pair starts if not there
 * (tinyaot_conv_pairs_dsp16 widens its inputs first).
 */
.macro pair_tail rev, fwd, block, frame, pair
	\rev:
	ldr ip, [sp, #pair_tback]
	add r0, r0, ip
	sub r1, r1, #8
	sub r2, r2, #8
	ldr ip, [sp, #pair_wstep]
	add r3, r3, ip
	\fwd:
	stm sp, {r0-r2}
	bne \block

/* The next pair: its runs (a0, b0, end; off), and its outputs pair_step and pair_out
 * on, and the first block's table and weights again; the slots lie so that LDM and STM
 * move them.
 */
	ldr ip, [sp, #pair_pairs]
	subs ip, ip, #1
	beq 8f
	str ip, [sp, #pair_pairs]
	ldrd r6, r7, [sp, #pair_pstep]
	add r8, sp, #pair_a0
	ldm r8, {r3-r5}
	add r3, r3, r6
	add r4, r4, r6
	add r5, r5, r6
	stm r8, {r3-r5}
	add r8, sp, #pair_t0
	ldm r8, {r0-r4}
	add r1, r1, r7
	add r2, r2, r7
	add r4, r4, r6
	stm r8, {r0-r4}
	stm sp, {r0-r2}
	.ifb \pair
	b \block
	.else
	b \pair
	.endif
8:
	add sp, sp, #\frame
	pop {r4-r11, pc}
.endm
/* pair_finish for a line table (tinyaot_requant_line): two free registers are enough,
 * so nothing waits on the stack.
 */
.macro pair_finish_line part=0
	pair_shift \part
	cmp r0, ip
	add r0, r0, #16
	pair_line r4, r8
	pair_line r5, r9
	pair_line r6, r10
	pair_line r7, r11
	pair_unshift \part
	ldr pc, [sp, #pair_adj]
.endm
	.pushsection .text.tinyaot_conv_pairs_body,"ax",%progbits
	.syntax unified
	.thumb
	.p2align 2

/* Named and sized, local, so that size reports count it with the runtime. */
	.type tinyaot_conv_pairs_body, %function
tinyaot_conv_pairs_body:
.Lpair_body:
	pair_enter pair_frame, 1
	str r3, [sp, #pair_len]
	pair_runs , pair_req, .Lpair_multi, .Lpair_next

/* The entry: (32 - len mod 32) mod 32 steps of pair_step_bytes into the loop. */
	and r5, r3, #31
	rsb r5, r5, #32
	and r5, r5, #31
	rsb r5, r5, r5, lsl #3
	adr r4, .Lpair_32
	add r4, r4, r5, lsl #3
	orr r4, r4, #1
	str r4, [sp, #pair_entry]

/* One run: its pointers are loaded with the biases, and a block starts at the entry. */
	sub r5, r2, r1
	cmp r5, #8
	it eq
	streq r4, [sp, #pair_start]
	adr r4, .Lpair_fwd
	cmp r7, #0
	bge 6f
	adr r4, .Lpair_rev
6:
	orr r4, r4, #1
	str r4, [sp, #pair_adj]
	mov r0, r6
	ldr r3, [sp, #pair_w0]
/* A block, r0 its table, r3 its weights: the bias in both pixels' accumulators and one
 * run's pointers, then the runs.
 */
.Lpair_block:
	ldmia r0!, {r4-r7}
	ldmdb r0, {r8-r11}
	ldrd r1, r2, [sp, #pair_a0]
	ldr pc, [sp, #pair_start]
.Lpair_multi:
	ldr r0, [sp, #pair_run0]
.Lpair_run:
	pair_next_run
.Lpair_32:
	pair_step
.Lpair_1:
	.if .Lpair_1 - .Lpair_32 - pair_step_bytes
	.error "pair_step is not pair_step_bytes long"
	.endif
	.rept 31
	pair_step
	.endr
	ldr lr, [sp, #pair_end]
	cmp r1, lr
	bne .Lpair_32
	ldr pc, [sp, #pair_nextrun]
.Lpair_next:
	ldrd r0, ip, [sp, #pair_next]
	cmp r0, ip
	bne .Lpair_run
	ldr pc, [sp, #pair_req]
	pair_tail .Lpair_rev, .Lpair_fwd, .Lpair_block, pair_frame
	.size tinyaot_conv_pairs_body, .-tinyaot_conv_pairs_body
	.popsection

/* A global routine in its own section, so that a model links only the ones it names. */
.macro routine_begin name
	.pushsection .text.\name,"ax",%progbits
	.p2align 2
	.global \name
	.hidden \name
	.type \name, %function
	.thumb_func
	\name:
.endm
/* An entry in its own section: the address of its finish (what follows) in ip, then
 * the shared body. The pixel routines below are made the same way.
 */
.macro conv_entry name, body, finish
	routine_begin \name
	adr ip, 1f
	b \body
1:
	\finish
	.size \name, .-\name
	.popsection
.endm
	conv_entry tinyaot_conv_pairs, .Lpair_body, pair_finish
	conv_entry tinyaot_conv_pairs_line, .Lpair_body, pair_finish_line
	conv_entry tinyaot_conv_pairs_part, .Lpair_body, "pair_finish 1"
	conv_entry tinyaot_conv_pairs_line_part, .Lpair_body, "pair_finish_line 1"

#if TINYAOT_DSP_KERNELS
/*
 * The pair routine for cores with the DSP extension (Cortex-M4, M7, M33 with DSP). SMLAD
 * multiplies two pairs of int16 and adds both products, so a word of four inputs, split by
 * SXTB16 into inputs 0 and 2 and inputs 1 and 3, meets a word of four weights of one channel,
 * split alike, in two instructions. A block of four channels runs as two halves of two
 * channels, each over both pixels, which keeps four accumulators, four input pairs, two weight
 * pairs and the three pointers in registers: 20 instructions per 16 multiply-accumulates,
 * unrolled eight times. The weights are in the layout the compiler writes for this routine
 * (tinyaot_conv_fast_params.dsp): per block, per half, per four inputs, each channel's word;
 * it does so where every run is a multiple of 4 bytes. tinyaot_conv_pairs_dsp takes whole
 * blocks, tinyaot_conv_pairs_dsp_part a partial highest block (its outputs moved back, as
 * tinyaot_conv_pairs_part's are); a clamp narrower than int8 is the caller's (clamp_after).
 * Both enter one body with the addresses of their two requantisations, for tinyaot_requant_c()
 * tables in ip and for line tables in r1, of which the body keeps the job's.
 *
 * In the loop: r4, r5 pixel a's accumulators of the half's two channels, r6, r7 pixel b's, r1 a,
 * r2 b, r3 weights; r8, r0 a's input pairs, r9, ip b's, r10, lr a channel's weight pairs. The
 * frame is the Thumb-2 routine's, with `unr` holding the whole run length, `end` the current
 * run's end, and three more slots: the half being run, the first half's accumulators and where
 * a block of one run goes after it.
 */

.equ dsp_half, 124
.equ dsp_acc, 128
.equ dsp_after, 144
.equ dsp_frame, 148
/* Every instruction of dsp_step and x_step has a 32-bit encoding. */
.equ dsp_step_bytes, 80
.equ x_step_bytes, 56
.equ w_step_bytes, 40
.macro dsp_step
	ldr r0, [r1], #4
	ldr ip, [r2], #4
	ldr lr, [r3], #4
	sxtb16 r8, r0
	sxtb16 r0, r0, ror #8
	sxtb16 r9, ip
	sxtb16 ip, ip, ror #8
	sxtb16 r10, lr
	sxtb16 lr, lr, ror #8
	smlad r4, r8, r10, r4
	smlad r4, r0, lr, r4
	smlad r6, r9, r10, r6
	smlad r6, ip, lr, r6
	ldr lr, [r3], #4
	sxtb16 r10, lr
	sxtb16 lr, lr, ror #8
	smlad r5, r8, r10, r5
	smlad r5, r0, lr, r5
	smlad r7, r9, r10, r7
	smlad r7, ip, lr, r7
.endm
/* The DSP bodies' entry: the requantisation for the job's table (ip for tinyaot_requant_c()
 * tables, r1 for line tables), then the frame.
 */
.macro dsp_enter frame
	ldr r2, [r0, #TINYAOT_PAIR_JOB_LINE]
	cbz r2, 1f
	mov ip, r1
1:
	pair_enter \frame, 1
.endm
/* Where a half of 8q + n steps (n in 0-7) enters the eight-step loop at s0: (8 - n) mod 8
 * steps of `bytes` in; where a block goes after its requantisation: fwd, or rev where
 * table_step (r7) is negative; then the first block's table (r0) and weights (r3).
 */
.macro dsp_entries n, s0, bytes, fwd, rev
	rsb r5, \n, #8
	and r5, r5, #7
	movs r4, #\bytes
	mul r5, r5, r4
	adr r4, \s0
	add r4, r4, r5
	orr r4, r4, #1
	str r4, [sp, #pair_entry]
	adr r4, \fwd
	cmp r7, #0
	it lt
	adrlt r4, \rev
	orr r4, r4, #1
	str r4, [sp, #pair_adj]
	mov r0, r6
	ldr r3, [sp, #pair_w0]
.endm
/* A half is done, r4-r7 its accumulators: after the first, keep them and start the second
 * at \second with its two biases in r4 and r5; after both, the eight accumulators where
 * pair_requant wants them, and the requantisation.
 */
.macro dsp_halves second
	ldr r0, [sp, #dsp_half]
	cbnz r0, 3f
	add r0, sp, #dsp_acc
	stm r0, {r4-r7}
	movs r0, #1
	str r0, [sp, #dsp_half]
	ldr r0, [sp, #pair_t]
	ldrd r4, r5, [r0, #8]
	b \second
3:
	movs r0, #0
	str r0, [sp, #dsp_half]
	mov r10, r6
	mov r11, r7
	mov r6, r4
	mov r7, r5
	add r0, sp, #dsp_acc
	ldm r0, {r4, r5, r8, r9}
	ldr pc, [sp, #pair_req]
.endm
/* A global routine entering body with the addresses of its two requantisations. */
.macro dsp_entry name, part, body
	routine_begin \name
	adr ip, 1f
	adr r1, 2f
	b \body
1:
	pair_finish \part
2:
	pair_finish_line \part
	.size \name, .-\name
	.popsection
.endm
	.pushsection .text.tinyaot_conv_pairs_dsp_body,"ax",%progbits
	.syntax unified
	.thumb
	.p2align 2
	.type tinyaot_conv_pairs_dsp_body, %function
tinyaot_conv_pairs_dsp_body:
.Ldsp_body:
	dsp_enter dsp_frame
	str r3, [sp, #pair_len]
	movs r4, #0
	str r4, [sp, #dsp_half]
	pair_set dsp_after, .Ldsp_half
	pair_runs .Ldsp_single, dsp_after, .Ldsp_multi, .Ldsp_next

/* A run of 32q + 4r bytes is 8q + r steps. */
	ubfx r3, r3, #2, #3
	dsp_entries r3, .Ldsp_s0, dsp_step_bytes, .Ldsp_fwd, .Ldsp_rev
/* A block, r0 its table, r3 its weights: the bias of its first two channels, then the
 * runs.
 */
.Ldsp_block:
	ldrd r4, r5, [r0]
.Ldsp_half_start:
	mov r6, r4
	mov r7, r5
	ldr pc, [sp, #pair_start]
.Ldsp_single:
	ldrd r1, r2, [sp, #pair_a0]
	ldr pc, [sp, #pair_entry]
.Ldsp_multi:
	ldr r0, [sp, #pair_run0]
.Ldsp_run:
	pair_next_run
.Ldsp_s0:
	dsp_step
.Ldsp_s1:
	.if .Ldsp_s1 - .Ldsp_s0 - dsp_step_bytes
	.error "dsp_step is not dsp_step_bytes long"
	.endif
	.rept 7
	dsp_step
	.endr
	ldr lr, [sp, #pair_end]
	cmp r1, lr
	bne .Ldsp_s0
	ldr pc, [sp, #pair_nextrun]
.Ldsp_next:
	ldrd r0, ip, [sp, #pair_next]
	cmp r0, ip
	bne .Ldsp_run
.Ldsp_half:
	dsp_halves .Ldsp_half_start
	pair_tail .Ldsp_rev, .Ldsp_fwd, .Ldsp_block, dsp_frame
	.size tinyaot_conv_pairs_dsp_body, .-tinyaot_conv_pairs_dsp_body
	.popsection

	dsp_entry tinyaot_conv_pairs_dsp, 0, .Ldsp_body
	dsp_entry tinyaot_conv_pairs_dsp_part, 1, .Ldsp_body

/*
 * The DSP routine for windows of at most TINYAOT_CONV_DSP16_DEPTH inputs. Above, every half
 * block widens its four input words again; here a pair's inputs are widened once, before its
 * first block, into a buffer in the frame: per four inputs, a's inputs 0 and 2 and 1 and 3,
 * then b's (a 16-byte LDM). A step is then 14 instructions per 16 multiply-accumulates: that
 * LDM, an LDRD of the two channels' weight words, their four SXTB16 and eight SMLAD. The
 * weights are the DSP routine's layout; the buffer costs 4 bytes of stack per input. Widening
 * is 9 instructions per four inputs of both pixels, once per pair. A lone run (the patch) is
 * read rounded up to whole words: the compiler pads a window that is not with zero weights.
 * Deeper windows take it where the job's `wide` names a buffer of 4 bytes per input (the
 * compiler's scratch in the arena): the frame's buffer is then not used.
 *
 * In the loop: r4, r5 pixel a's accumulators of the half's two channels, r6, r7 pixel b's,
 * r1 the buffer, r3 the weights; r0, r2 a's input pairs, r8, r9 b's; ip, r10 the first
 * channel's weight pairs, lr, r11 the second's. The frame is the DSP routine's, with x_end
 * where the widened inputs end (pair_tail moves pair_end with the pairs), `entry` where a
 * half enters the eight-step loop, x_base the buffer used (the job's or the frame's; the slot
 * of pair_start, which this body does not use), and the frame's buffer after them.
 */
.equ x_base, pair_start
.equ x_end, 144
.equ x_buf, 148
.equ x_frame, x_buf + 4 * TINYAOT_CONV_DSP16_DEPTH
/* A step's eight products: both pixels' input pairs against both channels' weight pairs. */
.macro x_macs
	smlad r4, r0, ip, r4
	smlad r4, r2, r10, r4
	smlad r6, r8, ip, r6
	smlad r6, r9, r10, r6
	smlad r5, r0, lr, r5
	smlad r5, r2, r11, r5
	smlad r7, r8, lr, r7
	smlad r7, r9, r11, r7
.endm
.macro x_step
	ldmia r1!, {r0, r2, r8, r9}
	ldrd r10, r11, [r3], #8
	sxtb16 ip, r10
	sxtb16 r10, r10, ror #8
	sxtb16 lr, r11
	sxtb16 r11, r11, ror #8
	x_macs
.endm
/* The body of the routines on widened inputs, name its section, p its labels' prefix, step
 * the loop's step of `bytes`.
 */
.macro x_body name, p, step, bytes
	.pushsection .text.\name,"ax",%progbits
	.syntax unified
	.thumb
	.p2align 2
	.type \name, %function
\name:
.L\p\()_body:
	dsp_enter x_frame
	add r3, r3, #3
	bic r3, r3, #3
	str r3, [sp, #pair_len]
	movs r4, #0
	str r4, [sp, #dsp_half]

/* 4 * depth = len * (runs_end - run) / 2 bytes of widened inputs; a half of depth / 4 = 8q + r
 * steps enters the loop at step (8 - r) mod 8.
 */
	sub r4, r2, r1
	mul r4, r4, r3
	lsr r4, r4, #1
	ldr r5, [r0, #TINYAOT_PAIR_JOB_WIDE]
	cbnz r5, 1f
	add r5, sp, #x_buf
1:
	str r5, [sp, #x_base]
	add r5, r5, r4
	str r5, [sp, #x_end]
	ubfx r3, r4, #4, #3
	dsp_entries r3, .L\p\()_s0, \bytes, .L\p\()_fwd, .L\p\()_rev
/* A pair, r0 its first block's table, r3 its weights: every run widened into the buffer. */
.L\p\()_pair:
	ldr r8, [sp, #x_base]
	ldr ip, [sp, #pair_run0]
	ldrd r10, r11, [sp, #pair_off]
2:
	ldmia ip!, {r1, r2}
	add r1, r1, r10
	add r2, r2, r10
	add r9, r1, r11
3:
	ldr r4, [r1], #4
	ldr r6, [r2], #4
	sxtb16 r5, r4, ror #8
	sxtb16 r4, r4
	sxtb16 r7, r6, ror #8
	sxtb16 r6, r6
	stmia r8!, {r4-r7}
	cmp r1, r9
	bne 3b
	ldr lr, [sp, #pair_runs_end]
	cmp ip, lr
	bne 2b
/* A block: the bias of its first two channels, then the buffer. */
.L\p\()_block:
	ldrd r4, r5, [r0]
.L\p\()_half_start:
	mov r6, r4
	mov r7, r5
	ldr r1, [sp, #x_base]
	ldr pc, [sp, #pair_entry]
.L\p\()_s0:
	\step
.L\p\()_s1:
	.if .L\p\()_s1 - .L\p\()_s0 - \bytes
	.error "\step is not \bytes long"
	.endif
	.rept 7
	\step
	.endr
	ldr lr, [sp, #x_end]
	cmp r1, lr
	bne .L\p\()_s0
	dsp_halves .L\p\()_half_start
	pair_tail .L\p\()_rev, .L\p\()_fwd, .L\p\()_block, x_frame, .L\p\()_pair
	.size \name, .-\name
	.popsection
.endm
/* The step on weights the compiler wrote as int16 (Options.speed_flash): per block, per half,
 * per four inputs, the two channels' (w1, w3), then their (w0, w2), the registers x_step's
 * SXTB16 gives: 10 instructions per 16 multiply-accumulates.
 */
.macro w_step
	ldmia r1!, {r0, r2, r8, r9}
	ldmia r3!, {r10, r11, ip, lr}
	x_macs
.endm
	x_body tinyaot_conv_pairs_dsp16_body, x, x_step, x_step_bytes
	x_body tinyaot_conv_pairs_dsp16_w16_body, w, w_step, w_step_bytes

	dsp_entry tinyaot_conv_pairs_dsp16, 0, .Lx_body
	dsp_entry tinyaot_conv_pairs_dsp16_part, 1, .Lx_body
	dsp_entry tinyaot_conv_pairs_dsp16_w16, 0, .Lw_body
	dsp_entry tinyaot_conv_pairs_dsp16_w16_part, 1, .Lw_body
#endif

/*
 * One pixel and one run (a pointwise layer's or a patch's last pixel, when the pixel count is
 * odd): the pair routine would compute it twice, as pixel a and b. Here a step is 1 input load,
 * 4 weight loads and 4 MLA, unrolled 4 times (8 would cost another 144 bytes of code); requantising
 * a channel is 7 (an LDM of its four words, tinyaot_requant_c, SSAT), or 4 with a line table.
 * Same job fields, same tables and weight layout (not the DSP one). r0 the input, r1 the weights,
 * r2 the table, r3 the output, r4-r7 the accumulators, r8 an input, r9 a weight, r11 the blocks
 * left; ip and lr the ends of the unrolled and the single steps. The frame: the input, both ends,
 * then what each block adds to the weights, table and output pointers (0 forward; back over two
 * blocks in reverse), and where the requantisation starts. tinyaot_conv_single (tables for
 * tinyaot_requant_c) and tinyaot_conv_single_line each hold their requantisation and enter the
 * shared body with its address in ip: a model links only the one it names.
 */

.macro pixel_step
	ldrsb r8, [r0], #1
	ldrsb r9, [r1], #1
	mla r4, r9, r8, r4
	ldrsb r9, [r1], #1
	mla r5, r9, r8, r5
	ldrsb r9, [r1], #1
	mla r6, r9, r8, r6
	ldrsb r9, [r1], #1
	mla r7, r9, r8, r7
.endm
.macro pixel_requant acc
	ldmia r2!, {r8, r9, r10, ip}
	eor r0, ip, \acc, asr #31
	add lr, r9, \acc, asr #31
	smlal r0, lr, \acc, r8
	asr lr, lr, r10
	ssat lr, #8, lr
	strb lr, [r3], #1
.endm
.macro pixel_line acc
	ldmia r2!, {r8, r9}
	smlal \acc, r9, \acc, r8
	ssat r9, #8, r9, asr #2
	strb r9, [r3], #1
.endm
	.pushsection .text.tinyaot_conv_single_body,"ax",%progbits
	.syntax unified
	.thumb
	.p2align 2
	.type tinyaot_conv_single_body, %function
tinyaot_conv_single_body:
.Lpix_body:
	push {r4-r11, lr}
	sub sp, sp, #28
	ldr r4, [r0, #TINYAOT_PAIR_JOB_RUN]
	ldr r4, [r4]
	ldr r5, [r0, #TINYAOT_PAIR_JOB_LEN]
	add r6, r4, r5
	bic r5, r5, #3
	add r5, r4, r5
	stm sp, {r4-r6}
	ldr r1, [r0, #TINYAOT_PAIR_JOB_WEIGHTS]
	ldr r4, [r0, #TINYAOT_PAIR_JOB_WEIGHTS_STEP]
	ldr r2, [r0, #TINYAOT_PAIR_JOB_TABLE]
	ldr r3, [r0, #TINYAOT_PAIR_JOB_OUT_A]
	ldr r6, [r0, #TINYAOT_PAIR_JOB_OUT_STEP]
	sub r6, r6, #4
	ldr r11, [r0, #TINYAOT_PAIR_JOB_BLOCKS]
	ldr r5, [r0, #TINYAOT_PAIR_JOB_TABLE_STEP]
	ldr r7, [r0, #TINYAOT_PAIR_JOB_LINE]
	sub r5, r5, #80
	cbz r7, 7f
	add r5, r5, #32
7:
	orr r8, ip, #1
	add r7, sp, #12
	stm r7, {r4-r6, r8}
1:
	ldmia r2!, {r4-r7}
	ldm sp, {r0, ip, lr}
	cmp r0, ip
	beq 3f
2:
	.rept 4
	pixel_step
	.endr
	cmp r0, ip
	bne 2b
3:
	cmp r0, lr
	beq 5f
4:
	pixel_step
	cmp r0, lr
	bne 4b
5:
	ldr pc, [sp, #24]
.Lpix_after:
	add r10, sp, #12
	ldm r10, {r8, r9, ip}
	add r1, r1, r8
	add r2, r2, r9
	add r3, r3, ip
	subs r11, r11, #1
	bne 1b
	add sp, sp, #28
	pop {r4-r11, pc}
	.size tinyaot_conv_single_body, .-tinyaot_conv_single_body
	.popsection
.macro pixel_finish requant
	\requant r4
	\requant r5
	\requant r6
	\requant r7
	b .Lpix_after
.endm
	conv_entry tinyaot_conv_single, .Lpix_body, "pixel_finish pixel_requant"
	conv_entry tinyaot_conv_single_line, .Lpix_body, "pixel_finish pixel_line"

#endif /* TINYAOT_ASM_THUMB2 */

/* No executable stack, on the targets whose compilers mark every object so (Linux: native_sim
 * builds with the host's gcc, where the rest assembles to nothing): there an object without the
 * note asks for one, and the linker's warning fails Zephyr's link. Bare-metal toolchains mark
 * no object, and one marked object would make their linker warn about all the others.
 */
#if defined(__linux__) && defined(__ELF__)
	.section .note.GNU-stack, "", %progbits
#endif
