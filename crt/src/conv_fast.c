/* CONV_2D int8, fast path; the element order is documented in tinyaot/conv_fast.h. */
#include <string.h>
#include <tinyaot/conv_fast.h>
#include <tinyaot/fixedpoint.h>

/* One pair of a job: its runs (pixel a's and b's pointers, runs pairs of them) and outputs. */
struct pair_at {
	const int8_t *const *run;
	int32_t runs;
	int8_t *out_a, *out_b;
};

/* Adds a block's products for the pair's two pixels to acc (pixel a's four channels, then
 * b's), reading the block's weights from *w on.
 */
typedef void pair_accumulate_fn(const struct tinyaot_pair_job *job, const struct pair_at *at,
				const int8_t **w, int32_t acc[8]);

/* The portable block loop of one pair: bias, accumulate, requantise and clamp. */
static void tinyaot_pair_run_blocks(const struct tinyaot_pair_job *job, const struct pair_at *at,
				    pair_accumulate_fn *accumulate)
{
	const int8_t *w = job->weights;
	const int32_t *t = job->table;
	int8_t *out_a = at->out_a;
	int8_t *out_b = at->out_b;

	for (int32_t k = 0; k < job->blocks; k++) {
		const int32_t highest = job->out_step > 0 ? k == job->blocks - 1 : k == 0;
		const int32_t n = highest ? job->last : 4;
		const int32_t back = highest ? job->back : 0;
		int32_t acc[8];

		for (int32_t j = 0; j < 4; j++) {
			acc[j] = t[j];
			acc[4 + j] = t[j];
		}
		accumulate(job, at, &w, acc);
		w += job->weights_step;
		for (int32_t j = 0; j < n; j++) {
			const int32_t *q = t + 4 + (job->line ? 2 : 4) * j;
			const int32_t va =
				job->line ? tinyaot_requant_line(acc[j], q[0], q[1])
					  : tinyaot_requant_c(acc[j], q[0], q[1], q[2], q[3]);
			const int32_t vb =
				job->line ? tinyaot_requant_line(acc[4 + j], q[0], q[1])
					  : tinyaot_requant_c(acc[4 + j], q[0], q[1], q[2], q[3]);

			out_a[j - back] = (int8_t)tinyaot_clamp_i32(va, job->act_min, job->act_max);
			out_b[j - back] = (int8_t)tinyaot_clamp_i32(vb, job->act_min, job->act_max);
		}
		t = (const int32_t *)(const void *)((const uint8_t *)t + job->table_step);
		out_a += job->out_step;
		out_b += job->out_step;
	}
}

/* The job's pairs one after the other. */
static void tinyaot_pair_run_pairs(const struct tinyaot_pair_job *job,
				   pair_accumulate_fn *accumulate)
{
	const int8_t *run[2 * TINYAOT_CONV_FAST_RUNS_MAX];
	const int32_t n = (int32_t)(job->runs_end - job->run);
	struct pair_at at;

	at.run = job->pairs > 1 ? run : job->run;
	at.runs = n / 2;
	for (int32_t i = 0; i < job->pairs; i++) {
		for (int32_t k = 0; k < n && job->pairs > 1; k++) {
			run[k] = job->run[k] + i * job->pair_step;
		}
		at.out_a = job->out_a + i * job->pair_out;
		at.out_b = job->out_b + i * job->pair_out;
		tinyaot_pair_run_blocks(job, &at, accumulate);
	}
}

/* The weights in the default layout: per input, the block's four channels. */
static void tinyaot_pair_accumulate(const struct tinyaot_pair_job *job, const struct pair_at *at,
				    const int8_t **weights, int32_t acc[8])
{
	const int8_t *w = *weights;

	for (int32_t r = 0; r < at->runs; r++) {
		const int8_t *a = at->run[2 * r];
		const int8_t *b = at->run[2 * r + 1];

		for (int32_t i = 0; i < job->len; i++, w += 4) {
			for (int32_t j = 0; j < 4; j++) {
				acc[j] += w[j] * a[i];
				acc[4 + j] += w[j] * b[i];
			}
		}
	}
	*weights = w;
}

/*
 * The portable pair routine; the reference for the assembly below, and what runs for a
 * partial last block or an activation clamp narrower than int8.
 */
void tinyaot_conv_pairs_c(const struct tinyaot_pair_job *job)
{
	tinyaot_pair_run_pairs(job, tinyaot_pair_accumulate);
}

#if TINYAOT_ASM_THUMB2
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

__asm__(".equ pair_t, 0\n"
	".equ pair_tlast, 12\n"
	".equ pair_run0, 48\n"
	".equ pair_tback, 20\n"
	".equ pair_req, 24\n"
	/* Every instruction of pair_step has a 32-bit encoding. */
	".equ pair_step_bytes, 56\n"
	".equ pair_wstep, 28\n"
	".equ pair_a0, 32\n"
	".equ pair_end, 40\n"
	".equ pair_next, 52\n"
	".equ pair_runs_end, 56\n"
	".equ pair_entry, 60\n"
	".equ pair_nextrun, 68\n"
	".equ pair_start, 72\n"
	".equ pair_adj, 76\n"
	".equ pair_pairs, 80\n"
	".equ pair_pstep, 84\n"
	".equ pair_pout, 88\n"
	".equ pair_t0, 92\n"
	".equ pair_oa0, 96\n"
	".equ pair_w0, 104\n"
	".equ pair_off, 108\n"
	".equ pair_len, 112\n"
	".equ pair_job, 116\n"
	".equ pair_cur, 120\n"
	".equ pair_frame, 124\n"
	/* Stores the address of a local label, with the Thumb bit, at a frame offset. */
	".macro pair_set off, label\n\t"
	"adr r4, \\label\n\t"
	"orr r4, r4, #1\n\t"
	"str r4, [sp, #\\off]\n"
	".endm\n"
	".macro pair_step\n\t"
	"ldrsb r0, [r1], #1\n\t"
	"ldrsb ip, [r2], #1\n\t"
	"ldrsb lr, [r3], #1\n\t"
	"mla r4, lr, r0, r4\n\t"
	"mla r8, lr, ip, r8\n\t"
	"ldrsb lr, [r3], #1\n\t"
	"mla r5, lr, r0, r5\n\t"
	"mla r9, lr, ip, r9\n\t"
	"ldrsb lr, [r3], #1\n\t"
	"mla r6, lr, r0, r6\n\t"
	"mla r10, lr, ip, r10\n\t"
	"ldrsb lr, [r3], #1\n\t"
	"mla r7, lr, r0, r7\n\t"
	"mla r11, lr, ip, r11\n"
	".endm\n"
	/* One channel of both pixels: accumulators a and b; r0 walks the table, r1 and r2 point
	 * at the outputs. The channel's m, h, e - 1 and c go to four free registers in ascending
	 * order (LDM), ip and lr are the low words; c then takes a's upper word, h b's.
	 */
	".macro pair_requant a, b, m, h, e, c\n\t"
	"ldmia r0!, {\\m, \\h, \\e, \\c}\n\t"
	"eor ip, \\c, \\a, asr #31\n\t"
	"eor lr, \\c, \\b, asr #31\n\t"
	"add \\c, \\h, \\a, asr #31\n\t"
	"add \\h, \\h, \\b, asr #31\n\t"
	"smlal ip, \\c, \\a, \\m\n\t"
	"smlal lr, \\h, \\b, \\m\n\t"
	"asr \\c, \\c, \\e\n\t"
	"asr \\h, \\h, \\e\n\t"
	"ssat \\c, #8, \\c\n\t"
	"ssat \\h, #8, \\h\n\t"
	"strb \\c, [r1], #1\n\t"
	"strb \\h, [r2], #1\n"
	".endm\n"
	/* The same with a line table: the channel's m to ip, h to lr, and h again for b. */
	".macro pair_line a, b\n\t"
	"ldmia r0!, {ip, lr}\n\t"
	"smlal \\a, lr, \\a, ip\n\t"
	"ssat lr, #8, lr, asr #2\n\t"
	"strb lr, [r1], #1\n\t"
	"ldr lr, [r0, #-4]\n\t"
	"smlal \\b, lr, \\b, ip\n\t"
	"ssat lr, #8, lr, asr #2\n\t"
	"strb lr, [r2], #1\n"
	".endm\n"
	/* Entry: the frame, and the job's fields that do not change (see above). r1 run,
	 * r2 runs_end, r3 len, r4 weights, r5 weights_step, r6 table, r7 table_step, r8 out_a,
	 * r9 out_b, r10 out_step, r11 blocks; r1-r7 stay as loaded.
	 */
	".macro pair_enter frame, req\n\t"
	"push {r4-r11, lr}\n\t"
	"sub sp, sp, #\\frame\n\t"
	".ifnb \\req\n\t"
	"orr ip, ip, #1\n\t"
	"str ip, [sp, #pair_req]\n\t"
	".endif\n\t"
	"ldm r0, {r1-r11}\n\t"
	"str r0, [sp, #pair_job]\n\t"
	"str r1, [sp, #pair_run0]\n\t"
	"str r2, [sp, #pair_runs_end]\n\t"
	"str r5, [sp, #pair_wstep]\n\t"
	"stm sp, {r6, r8, r9}\n\t"
	"sub ip, r11, #1\n\t"
	"mla ip, r7, ip, r6\n\t"
	"str ip, [sp, #pair_tlast]\n\t"
	"str r6, [sp, #pair_t0]\n\t"
	"str r4, [sp, #pair_w0]\n\t"
	"strd r8, r9, [sp, #pair_oa0]\n\t"
	"ldr ip, [r0, #56]\n\t"
	"str ip, [sp, #pair_pairs]\n\t"
	"ldr ip, [r0, #60]\n\t"
	"str ip, [sp, #pair_pstep]\n\t"
	"ldr ip, [r0, #64]\n\t"
	"str ip, [sp, #pair_pout]\n\t"
	"movs ip, #0\n\t"
	"str ip, [sp, #pair_off]\n\t"
	"lsl ip, r7, #1\n\t"
	"str ip, [sp, #pair_tback]\n"
	".endm\n"
	/* Where the requantisation starts for the job's table: sign or line. */
	".macro pair_req sign, line\n\t"
	"ldr r4, [r0, #68]\n\t"
	"adr r0, \\sign\n\t"
	"cbz r4, 1f\n\t"
	"adr r0, \\line\n"
	"1:\n\t"
	"orr r0, r0, #1\n\t"
	"str r0, [sp, #pair_req]\n"
	".endm\n"
	/* One run (pointwise, or a copied window) or several: where a block's runs start
	 * (single, multi; no single: the caller sets it) and where to go after a run (the frame
	 * slot after_single, the label after_multi). One run's pointers, and where it ends (r3
	 * bytes on, stored at pair_end), are the same every block.
	 */
	".macro pair_runs single, after_single, multi, after_multi\n\t"
	"sub r5, r2, r1\n\t"
	"cmp r5, #8\n\t"
	"bne 1f\n\t"
	"ldm r1, {r4, r5}\n\t"
	"strd r4, r5, [sp, #pair_a0]\n\t"
	"add r4, r4, r3\n\t"
	"str r4, [sp, #pair_end]\n\t"
	"ldr r4, [sp, #\\after_single]\n\t"
	"str r4, [sp, #pair_nextrun]\n\t"
	".ifnb \\single\n\t"
	"pair_set pair_start, \\single\n\t"
	".endif\n\t"
	"b 2f\n"
	"1:\n\t"
	"pair_set pair_nextrun, \\after_multi\n\t"
	"pair_set pair_start, \\multi\n"
	"2:\n"
	".endm\n"
	/* The next of several runs, r0 its pair of pointers: r1, r2, where it ends, then in. */
	".macro pair_next_run\n\t"
	"ldmia r0!, {r1, r2}\n\t"
	"str r0, [sp, #pair_next]\n\t"
	"ldrd ip, lr, [sp, #pair_off]\n\t"
	"add r1, r1, ip\n\t"
	"add r2, r2, ip\n\t"
	"add lr, r1, lr\n\t"
	"str lr, [sp, #pair_end]\n\t"
	"ldr pc, [sp, #pair_entry]\n"
	".endm\n"
	/* r0 the block's table, r1 and r2 its outputs, ip the last block's table, as pair_finish
	 * loads them; with part (the _part routines), the highest block's outputs job->back bytes
	 * before its place, the shift kept at cur for pair_unshift.
	 */
	".macro pair_shift part\n\t"
	".if \\part\n\t"
	"ldr ip, [sp, #pair_job]\n\t"
	"ldr lr, [ip, #72]\n\t"
	"ldr ip, [ip, #76]\n\t"
	"ldr r0, [sp, #pair_t]\n\t"
	"cmp r0, lr\n\t"
	"it ne\n\t"
	"movne ip, #0\n\t"
	"str ip, [sp, #pair_cur]\n\t"
	"ldrd r1, r2, [sp, #4]\n\t"
	"sub r1, r1, ip\n\t"
	"sub r2, r2, ip\n\t"
	"ldr ip, [sp, #pair_tlast]\n\t"
	".else\n\t"
	"ldm sp, {r0-r2, ip}\n\t"
	".endif\n"
	".endm\n"
	/* The outputs back at the block's place after its stores (ip is free). */
	".macro pair_unshift part\n\t"
	".if \\part\n\t"
	"ldr ip, [sp, #pair_cur]\n\t"
	"add r1, r1, ip\n\t"
	"add r2, r2, ip\n\t"
	".endif\n"
	".endm\n"
	/* The block's eight accumulators in r4-r11 requantised and stored (tinyaot_requant_c),
	 * then on to pair_tail's rev or fwd.
	 */
	".macro pair_finish part=0\n\t"
	"pair_shift \\part\n\t"
	"cmp r0, ip\n\t"
	"add r0, r0, #16\n\t"
	/* Channel 0 needs six free registers: the weights pointer and three of pixel b's
	 * accumulators wait on the stack until enough are free again.
	 */
	"push {r3, r9-r11}\n\t"
	"pair_requant r4, r8, r3, r9, r10, r11\n\t"
	"ldr r9, [sp, #4]\n\t"
	"pair_requant r5, r9, r3, r4, r8, r10\n\t"
	"ldrd r10, r11, [sp, #8]\n\t"
	"pair_requant r6, r10, r3, r4, r8, r9\n\t"
	"pair_requant r7, r11, r3, r4, r5, r6\n\t"
	"ldr r3, [sp], #16\n\t"
	"pair_unshift \\part\n\t"
	/* Forward, the table, outputs and weights already point at the next block; reverse,
	 * they step back over two. Nothing from the CMP with tlast on sets the flags.
	 */
	"ldr pc, [sp, #pair_adj]\n"
	".endm\n"
	/* After the requantisation, the next block, the next pair or the return: rev and fwd
	 * name the two ways on, block the block's start.
	 */
	".macro pair_tail rev, fwd, block, frame\n"
	"\\rev:\n\t"
	"ldr ip, [sp, #pair_tback]\n\t"
	"add r0, r0, ip\n\t"
	"sub r1, r1, #8\n\t"
	"sub r2, r2, #8\n\t"
	"ldr ip, [sp, #pair_wstep]\n\t"
	"add r3, r3, ip\n"
	"\\fwd:\n\t"
	"stm sp, {r0-r2}\n\t"
	"bne \\block\n\t"
	/* The next pair: its runs (a0, b0, end; off), and its outputs pair_step and pair_out
	 * on, and the first block's table and weights again; the slots lie so that LDM and STM
	 * move them.
	 */
	"ldr ip, [sp, #pair_pairs]\n\t"
	"subs ip, ip, #1\n\t"
	"beq 8f\n\t"
	"str ip, [sp, #pair_pairs]\n\t"
	"ldrd r6, r7, [sp, #pair_pstep]\n\t"
	"add r8, sp, #pair_a0\n\t"
	"ldm r8, {r3-r5}\n\t"
	"add r3, r3, r6\n\t"
	"add r4, r4, r6\n\t"
	"add r5, r5, r6\n\t"
	"stm r8, {r3-r5}\n\t"
	"add r8, sp, #pair_t0\n\t"
	"ldm r8, {r0-r4}\n\t"
	"add r1, r1, r7\n\t"
	"add r2, r2, r7\n\t"
	"add r4, r4, r6\n\t"
	"stm r8, {r0-r4}\n\t"
	"stm sp, {r0-r2}\n\t"
	"b \\block\n"
	"8:\n\t"
	"add sp, sp, #\\frame\n\t"
	"pop {r4-r11, pc}\n"
	".endm\n"
	/* pair_finish for a line table (tinyaot_requant_line): two free registers are enough,
	 * so nothing waits on the stack.
	 */
	".macro pair_finish_line part=0\n\t"
	"pair_shift \\part\n\t"
	"cmp r0, ip\n\t"
	"add r0, r0, #16\n\t"
	"pair_line r4, r8\n\t"
	"pair_line r5, r9\n\t"
	"pair_line r6, r10\n\t"
	"pair_line r7, r11\n\t"
	"pair_unshift \\part\n\t"
	"ldr pc, [sp, #pair_adj]\n"
	".endm\n"
	".pushsection .text.tinyaot_conv_pairs_body,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	/* Named and sized, local, so that size reports count it with the runtime. */
	".type tinyaot_conv_pairs_body, %function\n"
	"tinyaot_conv_pairs_body:\n"
	".Lpair_body:\n\t"
	"pair_enter pair_frame, 1\n\t"
	"str r3, [sp, #pair_len]\n\t"
	"pair_runs , pair_req, .Lpair_multi, .Lpair_next\n\t"
	/* The entry: (32 - len mod 32) mod 32 steps of pair_step_bytes into the loop. */
	"and r5, r3, #31\n\t"
	"rsb r5, r5, #32\n\t"
	"and r5, r5, #31\n\t"
	"rsb r5, r5, r5, lsl #3\n\t"
	"adr r4, .Lpair_32\n\t"
	"add r4, r4, r5, lsl #3\n\t"
	"orr r4, r4, #1\n\t"
	"str r4, [sp, #pair_entry]\n\t"
	/* One run: its pointers are loaded with the biases, and a block starts at the entry. */
	"sub r5, r2, r1\n\t"
	"cmp r5, #8\n\t"
	"it eq\n\t"
	"streq r4, [sp, #pair_start]\n\t"
	"adr r4, .Lpair_fwd\n\t"
	"cmp r7, #0\n\t"
	"bge 6f\n\t"
	"adr r4, .Lpair_rev\n"
	"6:\n\t"
	"orr r4, r4, #1\n\t"
	"str r4, [sp, #pair_adj]\n\t"
	"mov r0, r6\n\t"
	"ldr r3, [sp, #pair_w0]\n"
	/* A block, r0 its table, r3 its weights: the bias in both pixels' accumulators and one
	 * run's pointers, then the runs.
	 */
	".Lpair_block:\n\t"
	"ldmia r0!, {r4-r7}\n\t"
	"ldmdb r0, {r8-r11}\n\t"
	"ldrd r1, r2, [sp, #pair_a0]\n\t"
	"ldr pc, [sp, #pair_start]\n"
	".Lpair_multi:\n\t"
	"ldr r0, [sp, #pair_run0]\n"
	".Lpair_run:\n\t"
	"pair_next_run\n"
	".Lpair_32:\n\t"
	"pair_step\n"
	".Lpair_1:\n\t"
	".if .Lpair_1 - .Lpair_32 - pair_step_bytes\n\t"
	".error \"pair_step is not pair_step_bytes long\"\n\t"
	".endif\n\t"
	".rept 31\n\t"
	"pair_step\n\t"
	".endr\n\t"
	"ldr lr, [sp, #pair_end]\n\t"
	"cmp r1, lr\n\t"
	"bne .Lpair_32\n\t"
	"ldr pc, [sp, #pair_nextrun]\n"
	".Lpair_next:\n\t"
	"ldrd r0, ip, [sp, #pair_next]\n\t"
	"cmp r0, ip\n\t"
	"bne .Lpair_run\n\t"
	"ldr pc, [sp, #pair_req]\n\t"
	"pair_tail .Lpair_rev, .Lpair_fwd, .Lpair_block, pair_frame\n\t"
	".size tinyaot_conv_pairs_body, .-tinyaot_conv_pairs_body\n\t"
	".popsection\n\t"
	/* An entry in its own section: the address of its finish (what follows) in ip, then
	 * the shared body. The pixel routines below are made the same way.
	 */
	".macro conv_entry name, body, finish\n\t"
	".pushsection .text.\\name,\"ax\",%progbits\n\t"
	".p2align 2\n\t"
	".global \\name\n\t"
	".hidden \\name\n\t"
	".type \\name, %function\n\t"
	".thumb_func\n"
	"\\name:\n\t"
	"adr ip, 1f\n\t"
	"b \\body\n"
	"1:\n\t"
	"\\finish\n\t"
	".size \\name, .-\\name\n\t"
	".popsection\n"
	".endm\n\t"
	"conv_entry tinyaot_conv_pairs, .Lpair_body, pair_finish\n\t"
	"conv_entry tinyaot_conv_pairs_line, .Lpair_body, pair_finish_line\n\t"
	"conv_entry tinyaot_conv_pairs_part, .Lpair_body, \"pair_finish 1\"\n\t"
	"conv_entry tinyaot_conv_pairs_line_part, .Lpair_body, \"pair_finish_line 1\"\n");

#if TINYAOT_CONV_DSP
/*
 * The pair routine for cores with the DSP extension (Cortex-M4, M7, M33 with DSP). SMLAD
 * multiplies two pairs of int16 and adds both products, so a word of four inputs, split by
 * SXTB16 into inputs 0 and 2 and inputs 1 and 3, meets a word of four weights of one channel,
 * split alike, in two instructions. A block of four channels runs as two halves of two
 * channels, each over both pixels, which keeps four accumulators, four input pairs, two weight
 * pairs and the three pointers in registers: 20 instructions per 16 multiply-accumulates,
 * unrolled four times. The weights are in the layout the compiler writes for this routine
 * (tinyaot_conv_fast_params.dsp): per block, per half, per four inputs, each channel's word;
 * it does so only for an activation range of all of int8 and whole blocks, which is all the
 * routine handles.
 *
 * In the loop: r4, r5 pixel a's accumulators of the half's two channels, r6, r7 pixel b's, r1 a,
 * r2 b, r3 weights; r8, r0 a's input pairs, r9, ip b's, r10, lr a channel's weight pairs. The
 * frame is the Thumb-2 routine's, with `unr` holding the whole run length, `end` the current
 * run's end, and three more slots: the half being run, the first half's accumulators and where
 * a block of one run goes after it.
 */

__asm__(".equ dsp_half, 124\n"
	".equ dsp_acc, 128\n"
	".equ dsp_after, 144\n"
	".equ dsp_frame, 148\n"
	".macro dsp_step\n\t"
	"ldr r0, [r1], #4\n\t"
	"ldr ip, [r2], #4\n\t"
	"ldr lr, [r3], #4\n\t"
	"sxtb16 r8, r0\n\t"
	"sxtb16 r0, r0, ror #8\n\t"
	"sxtb16 r9, ip\n\t"
	"sxtb16 ip, ip, ror #8\n\t"
	"sxtb16 r10, lr\n\t"
	"sxtb16 lr, lr, ror #8\n\t"
	"smlad r4, r8, r10, r4\n\t"
	"smlad r4, r0, lr, r4\n\t"
	"smlad r6, r9, r10, r6\n\t"
	"smlad r6, ip, lr, r6\n\t"
	"ldr lr, [r3], #4\n\t"
	"sxtb16 r10, lr\n\t"
	"sxtb16 lr, lr, ror #8\n\t"
	"smlad r5, r8, r10, r5\n\t"
	"smlad r5, r0, lr, r5\n\t"
	"smlad r7, r9, r10, r7\n\t"
	"smlad r7, ip, lr, r7\n"
	".endm\n"
	".pushsection .text.tinyaot_conv_pairs_dsp,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	".global tinyaot_conv_pairs_dsp\n\t"
	".hidden tinyaot_conv_pairs_dsp\n\t"
	".type tinyaot_conv_pairs_dsp, %function\n\t"
	".thumb_func\n"
	"tinyaot_conv_pairs_dsp:\n\t"
	"pair_enter dsp_frame\n\t"
	"pair_req .Ldsp_req, .Ldsp_req_line\n\t"
	"str r3, [sp, #pair_len]\n\t"
	"movs r4, #0\n\t"
	"str r4, [sp, #dsp_half]\n\t"
	"pair_set dsp_after, .Ldsp_half\n\t"
	"pair_runs .Ldsp_single, dsp_after, .Ldsp_multi, .Ldsp_next\n\t"
	/* A run of 16q + 4r bytes enters the four-step loop at step (4 - r) mod 4. */
	"ubfx r3, r3, #2, #2\n\t"
	"adr r4, .Ldsp_s0\n\t"
	"cmp r3, #1\n\t"
	"it eq\n\t"
	"adreq r4, .Ldsp_s3\n\t"
	"cmp r3, #2\n\t"
	"it eq\n\t"
	"adreq r4, .Ldsp_s2\n\t"
	"cmp r3, #3\n\t"
	"it eq\n\t"
	"adreq r4, .Ldsp_s1\n\t"
	"orr r4, r4, #1\n\t"
	"str r4, [sp, #pair_entry]\n\t"
	"adr r4, .Ldsp_fwd\n\t"
	"cmp r7, #0\n\t"
	"it lt\n\t"
	"adrlt r4, .Ldsp_rev\n\t"
	"orr r4, r4, #1\n\t"
	"str r4, [sp, #pair_adj]\n\t"
	"mov r0, r6\n\t"
	"ldr r3, [sp, #pair_w0]\n"
	/* A block, r0 its table, r3 its weights: the bias of its first two channels, then the
	 * runs.
	 */
	".Ldsp_block:\n\t"
	"ldrd r4, r5, [r0]\n\t"
	"mov r6, r4\n\t"
	"mov r7, r5\n\t"
	"ldr pc, [sp, #pair_start]\n"
	".Ldsp_single:\n\t"
	"ldrd r1, r2, [sp, #pair_a0]\n\t"
	"ldr pc, [sp, #pair_entry]\n"
	".Ldsp_multi:\n\t"
	"ldr r0, [sp, #pair_run0]\n"
	".Ldsp_run:\n\t"
	"pair_next_run\n"
	".Ldsp_s0:\n\t"
	"dsp_step\n"
	".Ldsp_s1:\n\t"
	"dsp_step\n"
	".Ldsp_s2:\n\t"
	"dsp_step\n"
	".Ldsp_s3:\n\t"
	"dsp_step\n\t"
	"ldr lr, [sp, #pair_end]\n\t"
	"cmp r1, lr\n\t"
	"bne .Ldsp_s0\n\t"
	"ldr pc, [sp, #pair_nextrun]\n"
	".Ldsp_next:\n\t"
	"ldrd r0, ip, [sp, #pair_next]\n\t"
	"cmp r0, ip\n\t"
	"bne .Ldsp_run\n"
	/* A half is done: after the first, keep its accumulators and run the second. */
	".Ldsp_half:\n\t"
	"ldr r0, [sp, #dsp_half]\n\t"
	"cbnz r0, 3f\n\t"
	"add r0, sp, #dsp_acc\n\t"
	"stm r0, {r4-r7}\n\t"
	"movs r0, #1\n\t"
	"str r0, [sp, #dsp_half]\n\t"
	"ldr r0, [sp, #pair_t]\n\t"
	"ldrd r4, r5, [r0, #8]\n\t"
	"mov r6, r4\n\t"
	"mov r7, r5\n\t"
	"ldr pc, [sp, #pair_start]\n"
	/* Both halves: the eight accumulators where pair_requant wants them. */
	"3:\n\t"
	"movs r0, #0\n\t"
	"str r0, [sp, #dsp_half]\n\t"
	"mov r10, r6\n\t"
	"mov r11, r7\n\t"
	"mov r6, r4\n\t"
	"mov r7, r5\n\t"
	"add r0, sp, #dsp_acc\n\t"
	"ldm r0, {r4, r5, r8, r9}\n\t"
	"ldr pc, [sp, #pair_req]\n"
	".Ldsp_req:\n\t"
	"pair_finish\n"
	".Ldsp_req_line:\n\t"
	"pair_finish_line\n\t"
	"pair_tail .Ldsp_rev, .Ldsp_fwd, .Ldsp_block, dsp_frame\n\t"
	".size tinyaot_conv_pairs_dsp, .-tinyaot_conv_pairs_dsp\n\t"
	".popsection\n");
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

/* The assembly below has the tables' sizes built in: 80 and 48 bytes a block. */
typedef char tinyaot_pixel_table_layout
	[TINYAOT_CONV_FAST_TABLE == 20 && TINYAOT_CONV_FAST_LINE_TABLE == 12 ? 1 : -1];

__asm__(".macro pixel_step\n\t"
	"ldrsb r8, [r0], #1\n\t"
	"ldrsb r9, [r1], #1\n\t"
	"mla r4, r9, r8, r4\n\t"
	"ldrsb r9, [r1], #1\n\t"
	"mla r5, r9, r8, r5\n\t"
	"ldrsb r9, [r1], #1\n\t"
	"mla r6, r9, r8, r6\n\t"
	"ldrsb r9, [r1], #1\n\t"
	"mla r7, r9, r8, r7\n"
	".endm\n"
	".macro pixel_requant acc\n\t"
	"ldmia r2!, {r8, r9, r10, ip}\n\t"
	"eor r0, ip, \\acc, asr #31\n\t"
	"add lr, r9, \\acc, asr #31\n\t"
	"smlal r0, lr, \\acc, r8\n\t"
	"asr lr, lr, r10\n\t"
	"ssat lr, #8, lr\n\t"
	"strb lr, [r3], #1\n"
	".endm\n"
	".macro pixel_line acc\n\t"
	"ldmia r2!, {r8, r9}\n\t"
	"smlal \\acc, r9, \\acc, r8\n\t"
	"ssat r9, #8, r9, asr #2\n\t"
	"strb r9, [r3], #1\n"
	".endm\n"
	".pushsection .text.tinyaot_conv_single_body,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	".type tinyaot_conv_single_body, %function\n"
	"tinyaot_conv_single_body:\n"
	".Lpix_body:\n\t"
	"push {r4-r11, lr}\n\t"
	"sub sp, sp, #28\n\t"
	"ldr r4, [r0, #0]\n\t"
	"ldr r4, [r4]\n\t"
	"ldr r5, [r0, #8]\n\t"
	"add r6, r4, r5\n\t"
	"bic r5, r5, #3\n\t"
	"add r5, r4, r5\n\t"
	"stm sp, {r4-r6}\n\t"
	"ldr r1, [r0, #12]\n\t"
	"ldr r4, [r0, #16]\n\t"
	"ldr r2, [r0, #20]\n\t"
	"ldr r3, [r0, #28]\n\t"
	"ldr r6, [r0, #36]\n\t"
	"sub r6, r6, #4\n\t"
	"ldr r11, [r0, #40]\n\t"
	"ldr r5, [r0, #24]\n\t"
	"ldr r7, [r0, #68]\n\t"
	"sub r5, r5, #80\n\t"
	"cbz r7, 7f\n\t"
	"add r5, r5, #32\n"
	"7:\n\t"
	"orr r8, ip, #1\n\t"
	"add r7, sp, #12\n\t"
	"stm r7, {r4-r6, r8}\n"
	"1:\n\t"
	"ldmia r2!, {r4-r7}\n\t"
	"ldm sp, {r0, ip, lr}\n\t"
	"cmp r0, ip\n\t"
	"beq 3f\n"
	"2:\n\t"
	".rept 4\n\t"
	"pixel_step\n\t"
	".endr\n\t"
	"cmp r0, ip\n\t"
	"bne 2b\n"
	"3:\n\t"
	"cmp r0, lr\n\t"
	"beq 5f\n"
	"4:\n\t"
	"pixel_step\n\t"
	"cmp r0, lr\n\t"
	"bne 4b\n"
	"5:\n\t"
	"ldr pc, [sp, #24]\n"
	".Lpix_after:\n\t"
	"add r10, sp, #12\n\t"
	"ldm r10, {r8, r9, ip}\n\t"
	"add r1, r1, r8\n\t"
	"add r2, r2, r9\n\t"
	"add r3, r3, ip\n\t"
	"subs r11, r11, #1\n\t"
	"bne 1b\n\t"
	"add sp, sp, #28\n\t"
	"pop {r4-r11, pc}\n\t"
	".size tinyaot_conv_single_body, .-tinyaot_conv_single_body\n\t"
	".popsection\n\t"
	".macro pixel_finish requant\n\t"
	"\\requant r4\n\t"
	"\\requant r5\n\t"
	"\\requant r6\n\t"
	"\\requant r7\n\t"
	"b .Lpix_after\n"
	".endm\n\t"
	"conv_entry tinyaot_conv_single, .Lpix_body, \"pixel_finish pixel_requant\"\n\t"
	"conv_entry tinyaot_conv_single_line, .Lpix_body, \"pixel_finish pixel_line\"\n");

/* The line requantisation's SSAT shifts by 2 (asr #2 above). */
typedef char tinyaot_line_shift[TINYAOT_LINE_SHIFT == 2 ? 1 : -1];

/* The assembly reads the job by these offsets. */
typedef char tinyaot_pair_job_layout[(offsetof(struct tinyaot_pair_job, run) == 0 &&
				      offsetof(struct tinyaot_pair_job, runs_end) == 4 &&
				      offsetof(struct tinyaot_pair_job, len) == 8 &&
				      offsetof(struct tinyaot_pair_job, weights) == 12 &&
				      offsetof(struct tinyaot_pair_job, weights_step) == 16 &&
				      offsetof(struct tinyaot_pair_job, table) == 20 &&
				      offsetof(struct tinyaot_pair_job, table_step) == 24 &&
				      offsetof(struct tinyaot_pair_job, out_a) == 28 &&
				      offsetof(struct tinyaot_pair_job, out_b) == 32 &&
				      offsetof(struct tinyaot_pair_job, out_step) == 36 &&
				      offsetof(struct tinyaot_pair_job, blocks) == 40 &&
				      offsetof(struct tinyaot_pair_job, pairs) == 56 &&
				      offsetof(struct tinyaot_pair_job, pair_step) == 60 &&
				      offsetof(struct tinyaot_pair_job, pair_out) == 64 &&
				      offsetof(struct tinyaot_pair_job, line) == 68 &&
				      offsetof(struct tinyaot_pair_job, high) == 72 &&
				      offsetof(struct tinyaot_pair_job, back) == 76)
					     ? 1
					     : -1];

#else
void tinyaot_conv_pairs(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_pairs_c(job);
}

void tinyaot_conv_pairs_line(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_pairs_c(job);
}

void tinyaot_conv_pairs_part(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_pairs_c(job);
}

void tinyaot_conv_pairs_line_part(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_pairs_c(job);
}

void tinyaot_conv_single(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_pairs_c(job);
}

void tinyaot_conv_single_line(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_pairs_c(job);
}
#endif

struct conv_fast_pixel {
	const int8_t *in; /* the batch's input */
	int32_t y0, x0;   /* the window's top left corner, padding included */
	int32_t whole;    /* the window is inside the input horizontally */
};

/* Fills px for output pixel i; returns its column. */
static int32_t tinyaot_conv_fast_locate(const struct tinyaot_conv_dims *d, int32_t i,
					const int8_t *input, struct conv_fast_pixel *px)
{
	const int32_t line = i / d->out_w;
	const int32_t ox = i - line * d->out_w;
	const int32_t b = d->batches > 1 ? line / d->out_h : 0;
	const int32_t oy = line - b * d->out_h;

	px->in = input + b * d->in_h * d->in_w * d->in_c;
	px->y0 = oy * d->stride_h - d->pad_h;
	px->x0 = ox * d->stride_w - d->pad_w;
	px->whole = px->x0 >= 0 && px->x0 + d->k_w <= d->in_w;
	return ox;
}

#if defined(__GNUC__) && !defined(__clang__)
/* The copy loops below are a few bytes long: a call to memcpy or memset, into which GCC would
 * turn them, costs more than they do.
 */
#define CONV_FAST_NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define CONV_FAST_NO_LIBCALLS
#endif

/* The pixel's window, zero point where padded, as k_h * k_w * in_c contiguous bytes. Bytes
 * go four at a time where they can (memcpy of 4 is one LDR or STR; Cortex-M3 and up, like the
 * host, allow unaligned access).
 */
static CONV_FAST_NO_LIBCALLS void tinyaot_conv_fast_patch(const struct tinyaot_conv_dims *d,
							  const struct conv_fast_pixel *px,
							  int8_t zp, int8_t *restrict patch)
{
	/* Locals: a store through patch could otherwise alias d and px, forcing reloads. */
	const int32_t k_h = d->k_h, in_h = d->in_h, in_c = d->in_c;
	const int32_t row = d->in_w * in_c;
	const int32_t span = d->k_w * in_c;
	const int32_t x0 = px->x0, y0 = px->y0;
	const int8_t *in = px->in;
	/* The window's columns inside the input: kx in [lo, hi), as bytes [a, b) of a row. */
	const int32_t lo = x0 < 0 ? -x0 : 0;
	const int32_t hi = x0 + d->k_w > d->in_w ? d->in_w - x0 : d->k_w;
	const int32_t a = lo * in_c;
	const int32_t b = hi > lo ? hi * in_c : a;
	const uint32_t zp4 = (uint8_t)zp * 0x01010101u;
	int8_t *const end = patch + k_h * span;

	if (px->whole && y0 >= 0 && y0 + k_h <= in_h && span % 4 == 0) {
		/* Inside the input: k_h rows of span bytes, a row apart. */
		const int8_t *src = in + y0 * row + x0 * in_c;

		for (int8_t *dst = patch; dst != end; src += row - span) {
			for (int8_t *const row_end = dst + span; dst != row_end;
			     dst += 4, src += 4) {
				uint32_t v;

				memcpy(&v, src, 4);
				memcpy(dst, &v, 4);
			}
		}
		return;
	}
	/* Clipped: the zero point everywhere, in whole words (the patch has room for the
	 * rounding: it is a multiple of 4 bytes), then the parts inside the input.
	 */
	for (int8_t *dst = patch; dst < end; dst += 4) {
		memcpy(dst, &zp4, 4);
	}
	if (b <= a) {
		return;
	}
	for (int32_t ky = 0; ky < k_h; ky++) {
		const int32_t y = y0 + ky;

		if (y >= 0 && y < in_h) {
			const int8_t *src = in + y * row + (x0 + lo) * in_c;
			int8_t *dst = patch + ky * span + a;
			int32_t n = b - a;

			for (; n >= 4; n -= 4, src += 4, dst += 4) {
				uint32_t v;

				memcpy(&v, src, 4);
				memcpy(dst, &v, 4);
			}
			for (; n > 0; n--) {
				*dst++ = *src++;
			}
		}
	}
}

/* The pixel's runs (every other entry of `run`); returns the run length. */
static int32_t tinyaot_conv_fast_runs(const struct tinyaot_conv_dims *d,
				      const struct conv_fast_pixel *px, int32_t whole,
				      const int8_t *zero_row, const int8_t **restrict run)
{
	const int32_t k_h = d->k_h, k_w = d->k_w, in_h = d->in_h, in_w = d->in_w, in_c = d->in_c;
	const int32_t row = in_w * in_c;
	const int32_t x0 = px->x0, y0 = px->y0;
	const int8_t *in = px->in;

	for (int32_t ky = 0; ky < k_h; ky++) {
		const int32_t y = y0 + ky;
		const int valid_y = y >= 0 && y < in_h;

		if (whole) {
			*run = valid_y ? in + y * row + x0 * in_c : zero_row;
			run += 2;
			continue;
		}
		for (int32_t kx = 0; kx < k_w; kx++) {
			const int32_t x = x0 + kx;

			*run = valid_y && x >= 0 && x < in_w ? in + y * row + x * in_c : zero_row;
			run += 2;
		}
	}
	return whole ? k_w * in_c : in_c;
}

void tinyaot_conv_fast_s8(const struct tinyaot_conv_fast_params *p, const int8_t *input,
			  int8_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t pairs = (pixels + 1) / 2;
	const int32_t blocks = (d->out_c + 3) / 4;
	const int32_t depth = d->k_h * d->k_w * d->in_c;
	/* One run per pixel, the pixel itself: no window to locate. */
	const int32_t pointwise = p->mode == TINYAOT_CONV_ROWS && d->k_h == 1 && d->k_w == 1 &&
				  d->stride_h == 1 && d->stride_w == 1 && d->pad_h == 0 &&
				  d->pad_w == 0;
	union {
		int8_t patch[2][TINYAOT_CONV_FAST_PATCH_MAX];
		const int8_t *run[2 * TINYAOT_CONV_FAST_RUNS_MAX];
	} buf;
	const int8_t *const patch_run[2] = {buf.patch[0], buf.patch[1]};
	struct tinyaot_pair_job job;
	tinyaot_pair_fn *const run = p->pairs;
	tinyaot_pair_fn *const single = p->single != NULL ? p->single : p->pairs;

	/* Blocks go last to first in reverse, starting from the last block's channel. */
	const int32_t first = d->reverse ? 4 * (blocks - 1) : 0;

	job.weights = p->weights + first * depth;
	job.weights_step = d->reverse ? -8 * depth : 0;
	const int32_t table = p->line ? TINYAOT_CONV_FAST_LINE_TABLE : TINYAOT_CONV_FAST_TABLE;

	job.line = p->line;
	job.table = p->table + table / 4 * first;
	job.table_step = (d->reverse ? -4 : 4) * table;
	job.out_step = d->reverse ? -4 : 4;
	job.blocks = blocks;
	job.act_min = p->act_min;
	job.act_max = p->act_max;
	/* Over four channels, the highest block holds the last four (the compiler's layout): its
	 * outputs start back bytes before its place, and write the block below's last ones again,
	 * with the same values.
	 */
	job.back = d->out_c > 4 ? 4 * blocks - d->out_c : 0;
	job.last = d->out_c - 4 * (blocks - 1) + job.back;
	job.high = p->table + table * (blocks - 1);
	job.pairs = 1;
	job.pair_step = 0;
	job.pair_out = 0;
	if (pointwise) {
		/* Every full pair in one job, the pixels' runs and outputs a constant step apart;
		 * an odd last pixel alone, after them (before them in reverse).
		 */
		const int32_t full = pixels / 2;
		const int32_t dir = d->reverse ? -2 : 2;

		job.run = buf.run;
		job.runs_end = &buf.run[2];
		job.len = depth;
		for (int32_t part = 0; part < 2; part++) {
			const int32_t odd = d->reverse ? part == 0 : part == 1;
			const int32_t ia = odd ? pixels - 1 : (d->reverse ? 2 * (full - 1) : 0);

			if (odd ? pixels % 2 == 0 : full == 0) {
				continue;
			}
			job.pairs = odd ? 1 : full;
			job.pair_step = dir * d->in_c;
			job.pair_out = dir * d->out_c;
			buf.run[0] = input + ia * d->in_c;
			buf.run[1] = buf.run[0] + (odd ? 0 : d->in_c);
			job.out_a = output + ia * d->out_c + first;
			job.out_b = job.out_a + (odd ? 0 : d->out_c);
			(odd ? single : run)(&job);
		}
		return;
	}
	/* With an even row width every pair is two neighbours of one row; whole windows of a row
	 * whose rows are all inside the input then lie a constant step apart, pair to pair.
	 */
	const int32_t even = d->out_w % 2 == 0;
	const int32_t dir = d->reverse ? -1 : 1;
	/* The pixels whose windows are whole horizontally: columns [ox_lo, ox_hi]. */
	const int32_t ox_lo = (d->pad_w + d->stride_w - 1) / d->stride_w;
	const int32_t ox_hi_in = (d->in_w - d->k_w + d->pad_w) / d->stride_w;
	const int32_t ox_hi = ox_hi_in < d->out_w - 1 ? ox_hi_in : d->out_w - 1;

	for (int32_t t = 0; t < pairs;) {
		const int32_t pair = d->reverse ? pairs - 1 - t : t;
		const int32_t ia = 2 * pair;
		const int32_t ib = ia + 1 < pixels ? ia + 1 : ia;
		struct conv_fast_pixel px[2];
		const int32_t ox = tinyaot_conv_fast_locate(d, ia, input, &px[0]);
		int32_t count = 1;

		if (ib != ia && ox + 1 < d->out_w) {
			/* The next pixel of the same row. */
			px[1] = px[0];
			px[1].x0 += d->stride_w;
			px[1].whole = px[1].x0 >= 0 && px[1].x0 + d->k_w <= d->in_w;
		} else {
			tinyaot_conv_fast_locate(d, ib, input, &px[1]);
		}
		const int32_t whole = px[0].whole && px[1].whole;

		if (p->mode == TINYAOT_CONV_PATCH ||
		    (!whole && depth <= TINYAOT_CONV_FAST_PATCH_MAX)) {
			tinyaot_conv_fast_patch(d, &px[0], p->zero_row[0], buf.patch[0]);
			tinyaot_conv_fast_patch(d, &px[1], p->zero_row[0], buf.patch[1]);
			job.run = patch_run;
			job.runs_end = &patch_run[2];
			job.len = depth;
		} else {
			job.len =
				tinyaot_conv_fast_runs(d, &px[0], whole, p->zero_row, &buf.run[0]);
			tinyaot_conv_fast_runs(d, &px[1], whole, p->zero_row, &buf.run[1]);
			job.run = buf.run;
			job.runs_end = &buf.run[2 * (depth / job.len)];
			if (even && whole && px[0].y0 >= 0 && px[0].y0 + d->k_h <= d->in_h) {
				/* The row's whole pairs from this one on (back to, in reverse). */
				count = d->reverse ? ox / 2 - (ox_lo + 1) / 2 + 1
						   : (ox_hi - 1) / 2 - ox / 2 + 1;
			}
		}
		job.pairs = count;
		job.pair_step = dir * 2 * d->stride_w * d->in_c;
		job.pair_out = dir * 2 * d->out_c;
		job.out_a = output + ia * d->out_c + first;
		job.out_b = output + ib * d->out_c + first;
		/* The last pixel of an odd count, alone: with one run, the pixel routine. */
		(ia == ib && job.runs_end - job.run == 2 ? single : run)(&job);
		t += count;
	}
}
