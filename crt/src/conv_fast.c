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
 * channel of both pixels is 18 (tinyaot_requant() twice, see tinyaot/requant.h, with the output
 * saturated by SSAT).
 *
 * r0 = job. In the loop: r4-r7 pixel a's accumulators, r8-r11 pixel b's, r1 a, r2 b, r3
 * weights, r0 a's byte, ip b's byte, lr a weight. Stack frame below the saved registers:
 * [sp] end of the unrolled part of the run, [sp, #4] end of the run, [sp, #8] next run,
 * [sp, #12] job.
 */
#define TINYAOT_MAC_STEP                                                                           \
	"ldrsb r0, [r1], #1\n\t"                                                                   \
	"ldrsb ip, [r2], #1\n\t"                                                                   \
	"ldrsb lr, [r3], #1\n\t"                                                                   \
	"mla r4, lr, r0, r4\n\t"                                                                   \
	"mla r8, lr, ip, r8\n\t"                                                                   \
	"ldrsb lr, [r3], #1\n\t"                                                                   \
	"mla r5, lr, r0, r5\n\t"                                                                   \
	"mla r9, lr, ip, r9\n\t"                                                                   \
	"ldrsb lr, [r3], #1\n\t"                                                                   \
	"mla r6, lr, r0, r6\n\t"                                                                   \
	"mla r10, lr, ip, r10\n\t"                                                                 \
	"ldrsb lr, [r3], #1\n\t"                                                                   \
	"mla r7, lr, r0, r7\n\t"                                                                   \
	"mla r11, lr, ip, r11\n\t"

#define TINYAOT_MAC_STEP8                                                                          \
	TINYAOT_MAC_STEP TINYAOT_MAC_STEP TINYAOT_MAC_STEP TINYAOT_MAC_STEP TINYAOT_MAC_STEP       \
		TINYAOT_MAC_STEP TINYAOT_MAC_STEP TINYAOT_MAC_STEP

/* One channel of both pixels: accumulators a and b, the channel's mult, high and shift at
 * r1 + M, H, E; r2 and r0 point at the outputs. r3, ip, lr and, once read, a are scratch;
 * h holds the channel's high: lr (reloaded for b) for the first channel, then the b register
 * of the channel before, free by then.
 */
#define TINYAOT_REQUANT2(a, b, h, M, H, E)                                                         \
	"ldr r3, [r1, #" #M "]\n\t"                                                                \
	"ldr " h ", [r1, #" #H "]\n\t"                                                             \
	"and ip, " a ", #0x80000000\n\t"                                                           \
	"add lr, " h ", " a ", asr #31\n\t"                                                        \
	"eor ip, ip, #0x40000000\n\t"                                                              \
	"smlal ip, lr, " a ", r3\n\t"                                                              \
	"ldr ip, [r1, #" #E "]\n\t"                                                                \
	"asr lr, lr, ip\n\t"                                                                       \
	"ssat lr, #8, lr\n\t"                                                                      \
	"strb lr, [r2], #1\n\t"                                                                    \
	"and " a ", " b ", #0x80000000\n\t"                                                        \
	"add lr, " h ", " b ", asr #31\n\t"                                                        \
	"eor " a ", " a ", #0x40000000\n\t"                                                        \
	"smlal " a ", lr, " b ", r3\n\t"                                                           \
	"asr lr, lr, ip\n\t"                                                                       \
	"ssat lr, #8, lr\n\t"                                                                      \
	"strb lr, [r0], #1\n\t"
/* The first channel has no free register for h: it goes in lr and is read again for b. */
#define TINYAOT_REQUANT2_FIRST                                                                     \
	"ldr r3, [r1, #16]\n\t"                                                                    \
	"ldr lr, [r1, #20]\n\t"                                                                    \
	"and ip, r4, #0x80000000\n\t"                                                              \
	"add lr, lr, r4, asr #31\n\t"                                                              \
	"eor ip, ip, #0x40000000\n\t"                                                              \
	"smlal ip, lr, r4, r3\n\t"                                                                 \
	"ldr ip, [r1, #24]\n\t"                                                                    \
	"asr lr, lr, ip\n\t"                                                                       \
	"ssat lr, #8, lr\n\t"                                                                      \
	"strb lr, [r2], #1\n\t"                                                                    \
	"ldr lr, [r1, #20]\n\t"                                                                    \
	"and r4, r8, #0x80000000\n\t"                                                              \
	"add lr, lr, r8, asr #31\n\t"                                                              \
	"eor r4, r4, #0x40000000\n\t"                                                              \
	"smlal r4, lr, r8, r3\n\t"                                                                 \
	"asr lr, lr, ip\n\t"                                                                       \
	"ssat lr, #8, lr\n\t"                                                                      \
	"strb lr, [r0], #1\n\t"

/*
 * The frame below the saved registers: [sp] end of the unrolled part of the run, [sp, #4]
 * end of the run, [sp, #8] next run, [sp, #12] job, [sp, #16] end of the runs, [sp, #20] the
 * unrolled length, [sp, #24] the rest (len % 8), [sp, #28] weights step, [sp, #32] table
 * step, [sp, #36] output step - 4, then the block's state: [sp, #40] weights, [sp, #44]
 * table, [sp, #48] pixel a's outputs, [sp, #52] pixel b's, [sp, #56] blocks left.
 */
void tinyaot_pair_run_t2(const struct tinyaot_pair_job *job);

__asm__(".pushsection .text.tinyaot_pair_run_t2,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	".global tinyaot_pair_run_t2\n\t"
	".hidden tinyaot_pair_run_t2\n\t"
	".type tinyaot_pair_run_t2, %function\n\t"
	".thumb_func\n"
	"tinyaot_pair_run_t2:\n\t"
	"push {r4-r11, lr}\n\t"
	"sub sp, sp, #60\n\t"
	"str r0, [sp, #12]\n\t"
	"ldm r0, {r1-r11}\n\t"
	"str r2, [sp, #16]\n\t"
	"bic r1, r3, #7\n\t"
	"str r1, [sp, #20]\n\t"
	"and r3, r3, #7\n\t"
	"str r3, [sp, #24]\n\t"
	"str r5, [sp, #28]\n\t"
	"str r7, [sp, #32]\n\t"
	"subs r10, r10, #4\n\t"
	"str r10, [sp, #36]\n\t"
	"str r4, [sp, #40]\n\t"
	"str r6, [sp, #44]\n\t"
	"str r8, [sp, #48]\n\t"
	"str r9, [sp, #52]\n\t"
	"str r11, [sp, #56]\n"
	".Ltinyaot_pair_block:\n\t"
	"ldr r1, [sp, #44]\n\t"
	"ldm r1, {r4-r7}\n\t"
	"ldm r1, {r8-r11}\n\t"
	"ldr r3, [sp, #40]\n\t"
	"ldr r0, [sp, #12]\n\t"
	"ldr r0, [r0, #0]\n"
	".Ltinyaot_pair_run:\n\t"
	"ldmia r0!, {r1, r2}\n\t"
	"str r0, [sp, #8]\n\t"
	"ldr ip, [sp, #20]\n\t"
	"add r0, r1, ip\n\t"
	"str r0, [sp]\n\t"
	"cmp r1, r0\n\t"
	"beq .Ltinyaot_pair_tail\n\t"
	"tst ip, #8\n\t"
	"bne .Ltinyaot_pair_8\n"
	".Ltinyaot_pair_16:\n\t" TINYAOT_MAC_STEP8 ".Ltinyaot_pair_8:\n\t" TINYAOT_MAC_STEP8
	"ldr lr, [sp]\n\t"
	"cmp r1, lr\n\t"
	"bne .Ltinyaot_pair_16\n"
	".Ltinyaot_pair_tail:\n\t"
	"ldr r0, [sp, #24]\n\t"
	"cbz r0, .Ltinyaot_pair_next\n\t"
	"add r0, r1, r0\n\t"
	"str r0, [sp, #4]\n"
	".Ltinyaot_pair_1:\n\t" TINYAOT_MAC_STEP "ldr lr, [sp, #4]\n\t"
	"cmp r1, lr\n\t"
	"bne .Ltinyaot_pair_1\n"
	".Ltinyaot_pair_next:\n\t"
	"ldr r0, [sp, #8]\n\t"
	"ldr ip, [sp, #16]\n\t"
	"cmp r0, ip\n\t"
	"bne .Ltinyaot_pair_run\n\t"
	"ldr r0, [sp, #28]\n\t"
	"add r3, r3, r0\n\t"
	"str r3, [sp, #40]\n\t"
	"ldr r1, [sp, #44]\n\t"
	"ldr r2, [sp, #48]\n\t"
	"ldr r0, [sp, #52]\n\t" TINYAOT_REQUANT2_FIRST TINYAOT_REQUANT2("r5", "r9", "r8", 28, 32,
									36)
		TINYAOT_REQUANT2("r6", "r10", "r9", 40, 44, 48)
			TINYAOT_REQUANT2("r7", "r11", "r10", 52, 56,
					 60) "ldr r3, [sp, #36]\n\t"
					     "add r2, r2, r3\n\t"
					     "add r0, r0, r3\n\t"
					     "str r2, [sp, #48]\n\t"
					     "str r0, [sp, #52]\n\t"
					     "ldr r3, [sp, #32]\n\t"
					     "add r1, r1, r3\n\t"
					     "str r1, [sp, #44]\n\t"
					     "ldr r3, [sp, #56]\n\t"
					     "subs r3, r3, #1\n\t"
					     "str r3, [sp, #56]\n\t"
					     "bne .Ltinyaot_pair_block\n\t"
					     "add sp, sp, #60\n\t"
					     "pop {r4-r11, pc}\n\t"
					     ".size tinyaot_pair_run_t2, .-tinyaot_pair_run_t2\n\t"
					     ".popsection");

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
