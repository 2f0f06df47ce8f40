/* CONV_2D int8, fast path; the element order is documented in tinyaot/conv_fast.h. */
#include <stddef.h>
#include <string.h>
#include <tinyaot/asm_layout.h>
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

/* One channel of both pixels of a pair: requantise by the channel's words q (line or
 * per-channel, as the job says) and clamp to the activation.
 */
static inline void tinyaot_pair_store(const struct tinyaot_pair_job *job, const int32_t *q,
				      int32_t acc_a, int32_t acc_b, int8_t *out_a, int8_t *out_b)
{
	const int32_t va = job->line ? tinyaot_requant_line(acc_a, q[0], q[1])
				     : tinyaot_requant_c(acc_a, q[0], q[1], q[2], q[3]);
	const int32_t vb = job->line ? tinyaot_requant_line(acc_b, q[0], q[1])
				     : tinyaot_requant_c(acc_b, q[0], q[1], q[2], q[3]);

	*out_a = (int8_t)tinyaot_clamp_i32(va, job->act_min, job->act_max);
	*out_b = (int8_t)tinyaot_clamp_i32(vb, job->act_min, job->act_max);
}

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
			tinyaot_pair_store(job, t + 4 + (job->line ? 2 : 4) * j, acc[j], acc[4 + j],
					   out_a + j - back, out_b + j - back);
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
 * The portable pair routine; the reference for the assembly (thumb2/conv_routines.S), and
 * what runs for a partial last block or an activation clamp narrower than int8.
 */
void tinyaot_conv_pairs_c(const struct tinyaot_pair_job *job)
{
	tinyaot_pair_run_pairs(job, tinyaot_pair_accumulate);
}

/* Adds n channels' products of a run of len inputs of pixels a and b to sa and sb, the weights
 * n per input from *w on; four inputs a pass, where a loop's test and branch would cost as
 * much as the products.
 */
static inline void tinyaot_pair_run_n(const int8_t *a, const int8_t *b, int32_t len,
				      const int8_t **weights, int32_t sa[3], int32_t sb[3],
				      const int32_t n)
{
	const int8_t *w = *weights;
	int32_t a0 = sa[0], a1 = sa[1], a2 = sa[2];
	int32_t b0 = sb[0], b1 = sb[1], b2 = sb[2];

#define TINYAOT_PAIR_N_STEP(k)                                                                     \
	do {                                                                                       \
		const int32_t x = a[k], y = b[k];                                                  \
		a0 += w[n * (k)] * x;                                                              \
		b0 += w[n * (k)] * y;                                                              \
		if (n > 1) {                                                                       \
			a1 += w[n * (k) + 1] * x;                                                  \
			b1 += w[n * (k) + 1] * y;                                                  \
		}                                                                                  \
		if (n > 2) {                                                                       \
			a2 += w[n * (k) + 2] * x;                                                  \
			b2 += w[n * (k) + 2] * y;                                                  \
		}                                                                                  \
	} while (0)
	for (int32_t k = len >> 2; k != 0; k--, a += 4, b += 4, w += 4 * n) {
		TINYAOT_PAIR_N_STEP(0);
		TINYAOT_PAIR_N_STEP(1);
		TINYAOT_PAIR_N_STEP(2);
		TINYAOT_PAIR_N_STEP(3);
	}
	for (int32_t k = len & 3; k != 0; k--, a++, b++, w += n) {
		TINYAOT_PAIR_N_STEP(0);
	}
#undef TINYAOT_PAIR_N_STEP
	sa[0] = a0;
	sa[1] = a1;
	sa[2] = a2;
	sb[0] = b0;
	sb[1] = b1;
	sb[2] = b2;
	*weights = w;
}

/* Fewer than four channels, n (a constant in each caller): one block, its weights n per input
 * (the compiler's layout for these routines), the sums in registers and every pair of the job
 * in one loop, where the four-channel loop would multiply the block's zero weights too.
 */
static inline void tinyaot_pairs_n(const struct tinyaot_pair_job *job, const int32_t n)
{
	const int32_t runs = (int32_t)(job->runs_end - job->run) / 2;
	const int32_t *const t = job->table;
	const int32_t words = job->line ? 2 : 4;

	for (int32_t i = 0; i < job->pairs; i++) {
		const int32_t off = i * job->pair_step;
		const int8_t *w = job->weights;
		int32_t sa[3] = {t[0], t[1], t[2]};
		int32_t sb[3] = {t[0], t[1], t[2]};
		int8_t *const out_a = job->out_a + i * job->pair_out;
		int8_t *const out_b = job->out_b + i * job->pair_out;

		for (int32_t r = 0; r < runs; r++) {
			tinyaot_pair_run_n(job->run[2 * r] + off, job->run[2 * r + 1] + off,
					   job->len, &w, sa, sb, n);
		}
		for (int32_t j = 0; j < n; j++) {
			tinyaot_pair_store(job, t + 4 + words * j, sa[j], sb[j], out_a + j,
					   out_b + j);
		}
	}
}

void tinyaot_conv_pairs_c1(const struct tinyaot_pair_job *job)
{
	tinyaot_pairs_n(job, 1);
}

void tinyaot_conv_pairs_c2(const struct tinyaot_pair_job *job)
{
	tinyaot_pairs_n(job, 2);
}

void tinyaot_conv_pairs_c3(const struct tinyaot_pair_job *job)
{
	tinyaot_pairs_n(job, 3);
}

#if TINYAOT_ASM_THUMB2
/*
 * The routines are Thumb-2 assembly, crt/src/thumb2/conv_routines.S (and on Helium's cores
 * crt/src/mve/conv_blocks_mve.S), which has the job's layout (tinyaot/asm_layout.h), the
 * tables' sizes (80 and 48 bytes a block) and the line requantisation's shift (asr #2) built in.
 */
typedef char tinyaot_pixel_table_layout
	[TINYAOT_CONV_FAST_TABLE == 20 && TINYAOT_CONV_FAST_LINE_TABLE == 12 ? 1 : -1];
typedef char tinyaot_line_shift[TINYAOT_LINE_SHIFT == 2 ? 1 : -1];
typedef char tinyaot_pair_job_layout
	[(offsetof(struct tinyaot_pair_job, run) == TINYAOT_PAIR_JOB_RUN &&
	  offsetof(struct tinyaot_pair_job, runs_end) == TINYAOT_PAIR_JOB_RUNS_END &&
	  offsetof(struct tinyaot_pair_job, len) == TINYAOT_PAIR_JOB_LEN &&
	  offsetof(struct tinyaot_pair_job, weights) == TINYAOT_PAIR_JOB_WEIGHTS &&
	  offsetof(struct tinyaot_pair_job, weights_step) == TINYAOT_PAIR_JOB_WEIGHTS_STEP &&
	  offsetof(struct tinyaot_pair_job, table) == TINYAOT_PAIR_JOB_TABLE &&
	  offsetof(struct tinyaot_pair_job, table_step) == TINYAOT_PAIR_JOB_TABLE_STEP &&
	  offsetof(struct tinyaot_pair_job, out_a) == TINYAOT_PAIR_JOB_OUT_A &&
	  offsetof(struct tinyaot_pair_job, out_b) == TINYAOT_PAIR_JOB_OUT_B &&
	  offsetof(struct tinyaot_pair_job, out_step) == TINYAOT_PAIR_JOB_OUT_STEP &&
	  offsetof(struct tinyaot_pair_job, blocks) == TINYAOT_PAIR_JOB_BLOCKS &&
	  offsetof(struct tinyaot_pair_job, act_min) == TINYAOT_PAIR_JOB_ACT_MIN &&
	  offsetof(struct tinyaot_pair_job, act_max) == TINYAOT_PAIR_JOB_ACT_MAX &&
	  offsetof(struct tinyaot_pair_job, last) == TINYAOT_PAIR_JOB_LAST &&
	  offsetof(struct tinyaot_pair_job, pairs) == TINYAOT_PAIR_JOB_PAIRS &&
	  offsetof(struct tinyaot_pair_job, pair_step) == TINYAOT_PAIR_JOB_PAIR_STEP &&
	  offsetof(struct tinyaot_pair_job, pair_out) == TINYAOT_PAIR_JOB_PAIR_OUT &&
	  offsetof(struct tinyaot_pair_job, line) == TINYAOT_PAIR_JOB_LINE &&
	  offsetof(struct tinyaot_pair_job, high) == TINYAOT_PAIR_JOB_HIGH &&
	  offsetof(struct tinyaot_pair_job, back) == TINYAOT_PAIR_JOB_BACK &&
	  offsetof(struct tinyaot_pair_job, wide) == TINYAOT_PAIR_JOB_WIDE)
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

/* The input rows or columns a window axis of k taps, dil apart, spans. */
static inline int32_t tinyaot_conv_fast_extent(int32_t k, int32_t dil)
{
	return (k - 1) * dil + 1;
}

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
	px->whole = px->x0 >= 0 && px->x0 + tinyaot_conv_fast_extent(d->k_w, d->dil_w) <= d->in_w;
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

/* A dilated window, zero point where padded, as k_h * k_w * in_c contiguous bytes: the zero
 * point in whole words (the patch has room for the rounding), then each tap inside the input.
 */
static CONV_FAST_NO_LIBCALLS void tinyaot_conv_fast_patch_dilated(const struct tinyaot_conv_dims *d,
								  const struct conv_fast_pixel *px,
								  int8_t zp, int8_t *restrict patch)
{
	const int32_t in_c = d->in_c, k_w = d->k_w, dil_w = d->dil_w;
	const int32_t row = d->in_w * in_c;
	const uint32_t zp4 = (uint8_t)zp * 0x01010101u;
	int8_t *const end = patch + d->k_h * k_w * in_c;
	int32_t ky0, ky1, kx0, kx1;

	for (int8_t *dst = patch; dst < end; dst += 4) {
		memcpy(dst, &zp4, 4);
	}
	tinyaot_conv_axis(px->y0, d->k_h, d->dil_h, d->in_h, &ky0, &ky1);
	tinyaot_conv_axis(px->x0, k_w, dil_w, d->in_w, &kx0, &kx1);
	for (int32_t ky = ky0; ky < ky1; ky++) {
		const int8_t *src = px->in + (px->y0 + ky * d->dil_h) * row + px->x0 * in_c;

		for (int32_t kx = kx0; kx < kx1; kx++) {
			const int8_t *from = src + kx * dil_w * in_c;
			int8_t *dst = patch + (ky * k_w + kx) * in_c;

			for (int32_t n = 0; n < in_c; n++) {
				dst[n] = from[n];
			}
		}
	}
}

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

	if (d->dil_h != 1 || d->dil_w != 1) {
		tinyaot_conv_fast_patch_dilated(d, px, zp, patch);
		return;
	}
	if (px->whole && y0 >= 0 && y0 + k_h <= in_h && span == 8) {
		/* Rows of two words (one input channel, eight columns: micro_speech's windows),
		 * without an inner loop.
		 */
		const int8_t *src = in + y0 * row + x0 * in_c;

		for (int8_t *dst = patch; dst != end; dst += 8, src += row) {
			uint32_t v0, v1;

			memcpy(&v0, src, 4);
			memcpy(&v1, src + 4, 4);
			memcpy(dst, &v0, 4);
			memcpy(dst + 4, &v1, 4);
		}
		return;
	}
	if (px->whole && y0 >= 0 && y0 + k_h <= in_h) {
		/* Inside the input: k_h rows of span bytes, a row apart, each as whole words; a
		 * row that is not (3 channels by 3 columns: first layers over RGB) ends with a
		 * word on its last byte, so that nothing past the window is read or written
		 * (rows under a word byte by byte). The bytes after the window up to a whole word,
		 * which the DSP routine reads against zero weights, get the zero point first, as
		 * in the clipped windows.
		 */
		const int8_t *src = in + y0 * row + x0 * in_c;
		const int32_t tail = span % 4 != 0 ? span - 4 : span;

		if (k_h * span % 4 != 0) {
			memcpy(patch + (k_h * span & ~3), &zp4, 4);
		}
		for (int8_t *dst = patch; dst != end; dst += span, src += row) {
			if (tail < 0) {
				for (int32_t i = 0; i < span; i++) {
					dst[i] = src[i];
				}
				continue;
			}
			for (int32_t i = 0; i < tail; i += 4) {
				uint32_t v;

				memcpy(&v, src + i, 4);
				memcpy(dst + i, &v, 4);
			}
			if (tail != span) {
				uint32_t v;

				memcpy(&v, src + tail, 4);
				memcpy(dst + tail, &v, 4);
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

/* The pixel's runs (every other entry of `run`): a row of the window per run where whole and
 * its columns next to each other, else a tap per run. Returns the run length.
 */
static int32_t tinyaot_conv_fast_runs(const struct tinyaot_conv_dims *d,
				      const struct conv_fast_pixel *px, int32_t whole,
				      const int8_t *zero_row, const int8_t **restrict run)
{
	const int32_t k_h = d->k_h, k_w = d->k_w, in_h = d->in_h, in_w = d->in_w, in_c = d->in_c;
	const int32_t row = in_w * in_c, dil_h = d->dil_h, dil_w = d->dil_w;
	const int32_t x0 = px->x0, y0 = px->y0;
	const int8_t *in = px->in;
	const int32_t rows = whole && dil_w == 1;

	for (int32_t ky = 0; ky < k_h; ky++) {
		const int32_t y = y0 + ky * dil_h;
		const int valid_y = y >= 0 && y < in_h;

		if (rows) {
			*run = valid_y ? in + y * row + x0 * in_c : zero_row;
			run += 2;
			continue;
		}
		for (int32_t kx = 0; kx < k_w; kx++) {
			const int32_t x = x0 + kx * dil_w;

			*run = valid_y && x >= 0 && x < in_w ? in + y * row + x * in_c : zero_row;
			run += 2;
		}
	}
	return rows ? k_w * in_c : in_c;
}

void tinyaot_clamp_s8(int8_t *x, int32_t count, int32_t act_min, int32_t act_max)
{
	for (int8_t *const end = x + count; x != end; x++) {
		*x = (int8_t)tinyaot_clamp_i32(*x, act_min, act_max);
	}
}

static void tinyaot_conv_fast_jobs(const struct tinyaot_conv_fast_params *p, const int8_t *input,
				   int8_t *output, int16_t *wide)
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

	job.weights = p->weights + first / 4 * p->block_bytes;
	job.weights_step = d->reverse ? -2 * p->block_bytes : 0;
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
	job.wide = wide;
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
	const int32_t ext_h = tinyaot_conv_fast_extent(d->k_h, d->dil_h);
	const int32_t ox_hi_in =
		(d->in_w - tinyaot_conv_fast_extent(d->k_w, d->dil_w) + d->pad_w) / d->stride_w;
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
			px[1].whole =
				px[1].x0 >= 0 &&
				px[1].x0 + tinyaot_conv_fast_extent(d->k_w, d->dil_w) <= d->in_w;
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
			if (even && whole && px[0].y0 >= 0 && px[0].y0 + ext_h <= d->in_h) {
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

void tinyaot_conv_fast_s8(const struct tinyaot_conv_fast_params *p, const int8_t *input,
			  int8_t *output)
{
	tinyaot_conv_fast_wide_s8(p, input, output, NULL);
}

void tinyaot_conv_fast_wide_s8(const struct tinyaot_conv_fast_params *p, const int8_t *input,
			       int8_t *output, int16_t *wide)
{
	const struct tinyaot_conv_dims *d = &p->d;

	tinyaot_conv_fast_jobs(p, input, output, wide);
	if (p->clamp_after) {
		/* The whole output at once: the input it may overlap is no longer read. */
		tinyaot_clamp_s8(output, d->batches * d->out_h * d->out_w * d->out_c, p->act_min,
				 p->act_max);
	}
}
