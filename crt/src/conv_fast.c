/* CONV_2D int8, fast path; the element order is documented in tinyaot/conv_fast.h. */
#include <string.h>
#include <tinyaot/conv_fast.h>
#include <tinyaot/fixedpoint.h>

/*
 * The portable pair routine; the reference for the assembly below, and what runs for a
 * partial last block or an activation clamp narrower than int8.
 */
static void pair_run_c(const struct tinyaot_pair_job *job)
{
	const int32_t runs = (int32_t)(job->runs_end - job->run) / 2;
	const int8_t *w = job->weights;
	const int32_t *t = job->table;
	int8_t *out_a = job->out_a;
	int8_t *out_b = job->out_b;

	for (int32_t k = 0; k < job->blocks; k++) {
		const int32_t highest = job->out_step > 0 ? k == job->blocks - 1 : k == 0;
		const int32_t n = highest ? job->last : 4;
		int32_t acc[8];

		for (int32_t j = 0; j < 4; j++) {
			acc[j] = t[j];
			acc[4 + j] = t[j];
		}
		for (int32_t r = 0; r < runs; r++) {
			const int8_t *a = job->run[2 * r];
			const int8_t *b = job->run[2 * r + 1];

			for (int32_t i = 0; i < job->len; i++) {
				const int32_t xa = a[i];
				const int32_t xb = b[i];

				for (int32_t j = 0; j < 4; j++) {
					acc[j] += w[j] * xa;
					acc[4 + j] += w[j] * xb;
				}
				w += 4;
			}
		}
		w += job->weights_step;
		for (int32_t j = 0; j < n; j++) {
			const int32_t *q = t + 4 + 3 * j;
			const int32_t va = tinyaot_requant(acc[j], q[0], q[1], q[2]);
			const int32_t vb = tinyaot_requant(acc[4 + j], q[0], q[1], q[2]);

			out_a[j] = (int8_t)tinyaot_clamp_i32(va, job->act_min, job->act_max);
			out_b[j] = (int8_t)tinyaot_clamp_i32(vb, job->act_min, job->act_max);
		}
		t = (const int32_t *)(const void *)((const uint8_t *)t + job->table_step);
		out_a += job->out_step;
		out_b += job->out_step;
	}
}

#if defined(__GNUC__) && defined(__thumb2__)
/*
 * Thumb-2 (Cortex-M3 and up). The eight accumulators, both input pointers, the weights
 * pointer and three operands take all fourteen registers, which no C compiler allocates
 * without spilling in the loop; so the loop is written out. One input step is 14
 * instructions for 8 multiply-accumulates (2 input loads, 4 weight loads, 8 MLA), unrolled 16
 * times (a run of an odd number of 8-step groups enters the loop in its middle); requantising a
 * channel of both pixels is 17 (tinyaot_requant() twice, see tinyaot/requant.h, with the output
 * saturated by SSAT).
 *
 * In the loop: r4-r7 pixel a's accumulators, r8-r11 pixel b's, r1 a, r2 b, r3 weights, r0 a's
 * byte, ip b's byte, lr a weight. Everything else lives in a frame below the saved registers,
 * set up once per job, including where to go at each branch that depends only on the job (how
 * the run length splits into 16-step, 8-step and single steps; one run or several; forward or
 * reverse), so that a block pays for none of those tests. The frame, offsets from sp:
 *
 *   end16      0  a's address where the current run's unrolled steps end
 *   end        4  a's address where the current run ends
 *   next       8  the next run's pair of pointers
 *   run0      12  the first run's
 *   runs_end  16
 *   unr       20  the run length rounded down to a multiple of 8
 *   rest      24  the rest, 0 to 7
 *   wstep     28  weights_step
 *   a0, b0    32  one run only: its two pointers
 *   w         40  the block's weights
 *   t         44  the block's table, then out_a and out_b
 *   tend      56  the table after the last block
 *   entry     60  where a run starts: the 16-step or 8-step loop, or `after`
 *   after     64  after the unrolled steps: the single steps, or `nextrun`
 *   nextrun   68  after a run: the next run, or the requantisation
 *   start     72  a block's first run: the only one, or the first of several
 *   adj       76  after the requantisation: forward, or reverse
 */
void tinyaot_pair_run_t2(const struct tinyaot_pair_job *job);

__asm__(".equ pair_end16, 0\n"
	".equ pair_end, 4\n"
	".equ pair_next, 8\n"
	".equ pair_run0, 12\n"
	".equ pair_runs_end, 16\n"
	".equ pair_unr, 20\n"
	".equ pair_rest, 24\n"
	".equ pair_wstep, 28\n"
	".equ pair_a0, 32\n"
	".equ pair_w, 40\n"
	".equ pair_t, 44\n"
	".equ pair_tend, 56\n"
	".equ pair_entry, 60\n"
	".equ pair_after, 64\n"
	".equ pair_nextrun, 68\n"
	".equ pair_start, 72\n"
	".equ pair_adj, 76\n"
	".equ pair_frame, 80\n"
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
	/* One channel of both pixels: accumulators a and b; r0 walks the channel's mult, high
	 * and shift; r1 and r2 point at the outputs. r3, ip, lr and, once read, a are scratch; h
	 * holds the channel's high: the b register of the channel before, free by then (the first
	 * channel has none: its h goes in lr and is read again for b).
	 */
	".macro pair_requant a, b, h\n\t"
	"ldr r3, [r0], #4\n\t"
	"ldr \\h, [r0], #4\n\t"
	"and ip, \\a, #0x80000000\n\t"
	"add lr, \\h, \\a, asr #31\n\t"
	"eor ip, ip, #0x40000000\n\t"
	"smlal ip, lr, \\a, r3\n\t"
	"ldr ip, [r0], #4\n\t"
	"asr lr, lr, ip\n\t"
	"ssat lr, #8, lr\n\t"
	"strb lr, [r1], #1\n\t"
	".ifc \\h, lr\n\t"
	"ldr lr, [r0, #-8]\n\t"
	".endif\n\t"
	"and \\a, \\b, #0x80000000\n\t"
	"add lr, \\h, \\b, asr #31\n\t"
	"eor \\a, \\a, #0x40000000\n\t"
	"smlal \\a, lr, \\b, r3\n\t"
	"asr lr, lr, ip\n\t"
	"ssat lr, #8, lr\n\t"
	"strb lr, [r2], #1\n"
	".endm\n"
	".pushsection .text.tinyaot_pair_run_t2,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	".global tinyaot_pair_run_t2\n\t"
	".hidden tinyaot_pair_run_t2\n\t"
	".type tinyaot_pair_run_t2, %function\n\t"
	".thumb_func\n"
	"tinyaot_pair_run_t2:\n\t"
	"push {r4-r11, lr}\n\t"
	"sub sp, sp, #pair_frame\n\t"
	/* r1 run, r2 runs_end, r3 len, r4 weights, r5 weights_step, r6 table, r7 table_step,
	 * r8 out_a, r9 out_b, r10 out_step, r11 blocks.
	 */
	"ldm r0, {r1-r11}\n\t"
	"str r1, [sp, #pair_run0]\n\t"
	"str r2, [sp, #pair_runs_end]\n\t"
	"str r5, [sp, #pair_wstep]\n\t"
	"str r4, [sp, #pair_w]\n\t"
	"add ip, sp, #pair_t\n\t"
	"stm ip, {r6, r8, r9}\n\t"
	"mla ip, r7, r11, r6\n\t"
	"str ip, [sp, #pair_tend]\n\t"
	"and ip, r3, #7\n\t"
	"str ip, [sp, #pair_rest]\n\t"
	"bic r3, r3, #7\n\t"
	"str r3, [sp, #pair_unr]\n\t"
	"sub r5, r2, r1\n\t"
	"cmp r5, #8\n\t"
	"bne 1f\n\t"
	/* One run: its pointers, and where its unrolled steps end, are the same every block. */
	"ldm r1, {r4, r5}\n\t"
	"strd r4, r5, [sp, #pair_a0]\n\t"
	"add r4, r4, r3\n\t"
	"str r4, [sp, #pair_end16]\n\t"
	"pair_set pair_nextrun, .Lpair_req\n\t"
	"pair_set pair_start, .Lpair_single\n\t"
	"b 2f\n"
	"1:\n\t"
	"pair_set pair_nextrun, .Lpair_next\n\t"
	"pair_set pair_start, .Lpair_multi\n"
	"2:\n\t"
	"ldr r4, [sp, #pair_nextrun]\n\t"
	"cmp ip, #0\n\t"
	"beq 3f\n\t"
	"adr r4, .Lpair_tail\n\t"
	"orr r4, r4, #1\n"
	"3:\n\t"
	"str r4, [sp, #pair_after]\n\t"
	"cbz r3, 4f\n\t"
	"adr r4, .Lpair_16\n\t"
	"tst r3, #8\n\t"
	"beq 5f\n\t"
	"adr r4, .Lpair_8\n"
	"5:\n\t"
	"orr r4, r4, #1\n"
	"4:\n\t"
	"str r4, [sp, #pair_entry]\n\t"
	"adr r4, .Lpair_fwd\n\t"
	"cmp r7, #0\n\t"
	"bge 6f\n\t"
	"adr r4, .Lpair_rev\n"
	"6:\n\t"
	"orr r4, r4, #1\n\t"
	"str r4, [sp, #pair_adj]\n\t"
	"mov r0, r6\n"
	/* A block, r0 its table: the bias in both pixels' accumulators, then the runs. */
	".Lpair_block:\n\t"
	"ldmia r0!, {r4-r7}\n\t"
	"ldmdb r0, {r8-r11}\n\t"
	"ldr r3, [sp, #pair_w]\n\t"
	"ldr pc, [sp, #pair_start]\n"
	".Lpair_single:\n\t"
	"ldrd r1, r2, [sp, #pair_a0]\n\t"
	"ldr pc, [sp, #pair_entry]\n"
	".Lpair_multi:\n\t"
	"ldr r0, [sp, #pair_run0]\n"
	".Lpair_run:\n\t"
	"ldmia r0!, {r1, r2}\n\t"
	"str r0, [sp, #pair_next]\n\t"
	"ldr r0, [sp, #pair_unr]\n\t"
	"add r0, r1, r0\n\t"
	"str r0, [sp, #pair_end16]\n\t"
	"ldr pc, [sp, #pair_entry]\n"
	".Lpair_16:\n\t"
	".rept 8\n\t"
	"pair_step\n\t"
	".endr\n"
	".Lpair_8:\n\t"
	".rept 8\n\t"
	"pair_step\n\t"
	".endr\n\t"
	"ldr lr, [sp, #pair_end16]\n\t"
	"cmp r1, lr\n\t"
	"bne .Lpair_16\n\t"
	"ldr pc, [sp, #pair_after]\n"
	".Lpair_tail:\n\t"
	"ldr r0, [sp, #pair_rest]\n\t"
	"add r0, r1, r0\n\t"
	"str r0, [sp, #pair_end]\n"
	".Lpair_1:\n\t"
	"pair_step\n\t"
	"ldr lr, [sp, #pair_end]\n\t"
	"cmp r1, lr\n\t"
	"bne .Lpair_1\n\t"
	"ldr pc, [sp, #pair_nextrun]\n"
	".Lpair_next:\n\t"
	"ldr r0, [sp, #pair_next]\n\t"
	"ldr ip, [sp, #pair_runs_end]\n\t"
	"cmp r0, ip\n\t"
	"bne .Lpair_run\n"
	/* Requantise: r0 the block's rows of the table, r1 out_a, r2 out_b. */
	".Lpair_req:\n\t"
	"str r3, [sp, #pair_w]\n\t"
	"add ip, sp, #pair_t\n\t"
	"ldm ip, {r0-r2}\n\t"
	"add r0, r0, #16\n\t"
	"pair_requant r4, r8, lr\n\t"
	"pair_requant r5, r9, r8\n\t"
	"pair_requant r6, r10, r9\n\t"
	"pair_requant r7, r11, r10\n\t"
	/* Forward, the table, outputs and weights already point at the next block; reverse,
	 * they step back over two.
	 */
	"ldr pc, [sp, #pair_adj]\n"
	".Lpair_rev:\n\t"
	"sub r0, r0, #128\n\t"
	"sub r1, r1, #8\n\t"
	"sub r2, r2, #8\n\t"
	"ldr r3, [sp, #pair_w]\n\t"
	"ldr ip, [sp, #pair_wstep]\n\t"
	"add r3, r3, ip\n\t"
	"str r3, [sp, #pair_w]\n"
	".Lpair_fwd:\n\t"
	"add ip, sp, #pair_t\n\t"
	"stm ip, {r0-r2}\n\t"
	"ldr ip, [sp, #pair_tend]\n\t"
	"cmp r0, ip\n\t"
	"bne .Lpair_block\n\t"
	"add sp, sp, #pair_frame\n\t"
	"pop {r4-r11, pc}\n\t"
	".size tinyaot_pair_run_t2, .-tinyaot_pair_run_t2\n\t"
	".popsection\n");

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
				      offsetof(struct tinyaot_pair_job, blocks) == 40)
					     ? 1
					     : -1];

tinyaot_pair_fn tinyaot_pair_routine(const struct tinyaot_pair_job *job)
{
	return job->act_min == -128 && job->act_max == 127 && job->last == 4 ? tinyaot_pair_run_t2
									     : pair_run_c;
}
#else
tinyaot_pair_fn tinyaot_pair_routine(const struct tinyaot_pair_job *job)
{
	(void)job;
	return pair_run_c;
}
#endif

struct conv_fast_pixel {
	const int8_t *in; /* the batch's input */
	int32_t y0, x0;   /* the window's top left corner, padding included */
	int32_t whole;    /* the window is inside the input horizontally */
};

/* Fills px for output pixel i; returns its column. */
static int32_t conv_fast_locate(const struct tinyaot_conv_dims *d, int32_t i, const int8_t *input,
				struct conv_fast_pixel *px)
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
static CONV_FAST_NO_LIBCALLS void conv_fast_patch(const struct tinyaot_conv_dims *d,
						  const struct conv_fast_pixel *px, int8_t zp,
						  int8_t *restrict patch)
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
static int32_t conv_fast_runs(const struct tinyaot_conv_dims *d, const struct conv_fast_pixel *px,
			      int32_t whole, const int8_t *zero_row, const int8_t **restrict run)
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
	tinyaot_pair_fn run;

	/* Blocks go last to first in reverse, starting from the last block's channel. */
	const int32_t first = d->reverse ? 4 * (blocks - 1) : 0;

	job.weights = p->weights + first * depth;
	job.weights_step = d->reverse ? -8 * depth : 0;
	job.table = p->table + 4 * first;
	job.table_step = d->reverse ? -64 : 64;
	job.out_step = d->reverse ? -4 : 4;
	job.blocks = blocks;
	job.act_min = p->act_min;
	job.act_max = p->act_max;
	job.last = d->out_c - 4 * (blocks - 1);
	run = tinyaot_pair_routine(&job);
	for (int32_t t = 0; t < pairs; t++) {
		const int32_t pair = d->reverse ? pairs - 1 - t : t;
		const int32_t ia = 2 * pair;
		const int32_t ib = ia + 1 < pixels ? ia + 1 : ia;

		if (pointwise) {
			buf.run[0] = input + ia * d->in_c;
			buf.run[1] = input + ib * d->in_c;
			job.run = buf.run;
			job.runs_end = &buf.run[2];
			job.len = depth;
		} else {
			struct conv_fast_pixel px[2];

			const int32_t ox = conv_fast_locate(d, ia, input, &px[0]);

			if (ib != ia && ox + 1 < d->out_w) {
				/* The next pixel of the same row. */
				px[1] = px[0];
				px[1].x0 += d->stride_w;
				px[1].whole = px[1].x0 >= 0 && px[1].x0 + d->k_w <= d->in_w;
			} else {
				conv_fast_locate(d, ib, input, &px[1]);
			}
			const int32_t whole = px[0].whole && px[1].whole;

			if (p->mode == TINYAOT_CONV_PATCH ||
			    (!whole && depth <= TINYAOT_CONV_FAST_PATCH_MAX)) {
				conv_fast_patch(d, &px[0], p->zero_row[0], buf.patch[0]);
				conv_fast_patch(d, &px[1], p->zero_row[0], buf.patch[1]);
				job.run = patch_run;
				job.runs_end = &patch_run[2];
				job.len = depth;
			} else {
				job.len =
					conv_fast_runs(d, &px[0], whole, p->zero_row, &buf.run[0]);
				conv_fast_runs(d, &px[1], whole, p->zero_row, &buf.run[1]);
				job.run = buf.run;
				job.runs_end = &buf.run[2 * (depth / job.len)];
			}
		}
		job.out_a = output + ia * d->out_c + first;
		job.out_b = output + ib * d->out_c + first;
		run(&job);
	}
}
