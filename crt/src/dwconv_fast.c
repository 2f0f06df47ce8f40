/* DEPTHWISE_CONV_2D int8, fast path; the element order is documented in tinyaot/dwconv_fast.h. */
#include <stddef.h>
#include <string.h>
#include <tinyaot/asm_layout.h>
#include <tinyaot/dwconv_fast.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>
#include <tinyaot/requant.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>
#endif

#define CH  TINYAOT_DWCONV_FAST_CHUNK
#define ROW TINYAOT_DW3X3_ROW
#define OUT TINYAOT_DW3X3_OUT

/* The widest group, which sizes the stage's output slots. */
#define WIDEST 6

static inline int32_t tinyaot_dw3x3_weight(const int32_t *record, int32_t k)
{
	return (int8_t)(uint8_t)((uint32_t)record[1 + k / 4] >> (8 * (k % 4)));
}

/* The portable block routine: the reference for the Thumb-2 ones (thumb2/dw3x3_routines.S). */
static void tinyaot_dw3x3_block(const int32_t *record, int8_t *stage, int32_t n, int32_t s,
				int32_t lo, int32_t hi, int32_t line)
{
	do {
		int32_t acc[WIDEST];

		for (int32_t i = 0; i < n; i++) {
			acc[i] = record[0];
		}
		for (int32_t k = 0; k < 9; k++) {
			const int32_t w = tinyaot_dw3x3_weight(record, k);
			const int8_t *x = stage + (k / 3) * ROW + (k % 3) * CH;

			for (int32_t i = 0; i < n; i++) {
				acc[i] += w * x[i * s * CH];
			}
		}
		for (int32_t i = 0; i < n; i++) {
			const int32_t v = line ? tinyaot_requant_line(acc[i], record[4], record[5])
					       : tinyaot_requant_c(acc[i], record[4], record[5],
								   record[6], record[7]);

			stage[OUT + i * CH] = (int8_t)tinyaot_clamp_i32(v, lo, hi);
		}
		record += line ? TINYAOT_DW3X3_LINE_RECORD : TINYAOT_DW3X3_RECORD;
		stage++;
	} while ((uintptr_t)stage % CH != 0);
}

void tinyaot_dw3x3_c(const int32_t *records, int8_t *stage, int32_t n,
		     const struct tinyaot_dwconv_fast_params *p)
{
	tinyaot_dw3x3_block(records, stage, n, p->d.stride_w, p->act_min, p->act_max, p->line);
}

/* The columns of a group's window (tinyaot_dw3x3_stage); the Thumb-2 staging reads it in
 * this order.
 */
struct dw_cols {
	uint32_t zp4;   /* the zero point in each byte */
	int32_t ch;     /* bytes between input columns */
	int32_t cols;   /* columns of the window */
	int32_t ja, jb; /* the input's columns [ja, jb), ja < jb */
	int32_t words;  /* the chunk's channels / 4 */
};

/* A group of output pixels, at its current chunk (the Thumb-2 chunk loop reads it by offset). */
struct dw_group {
	struct dw_cols k;
	const int8_t *rows[3];  /* the chunk's window rows at column ja; NULL where padded */
	const int32_t *records; /* the chunk's first channel's record */
	int8_t *out;            /* the chunk's first channel of the group's first output */
	int32_t n;              /* outputs */
	tinyaot_dw3x3_fn *fn;   /* the block routine for n outputs */
	const struct tinyaot_dwconv_fast_params *p;
	int32_t chunks;       /* chunks of `k.words` words from this one on */
	int32_t chunk_record; /* bytes of a chunk's records */
};

#if TINYAOT_ASM_THUMB2
/*
 * The block routines, the staging and the chunk loop are Thumb-2 assembly,
 * crt/src/thumb2/dw3x3_routines.S, which has the stage's geometry (rows 144 bytes apart,
 * outputs at 432, 9 columns), the line requantisation's shift (asr #2) and the group's layout
 * (tinyaot/asm_layout.h) built in; Helium's block routines (crt/src/mve/dw3x3_mve_routines.S)
 * the geometry and the vector records' size (8 words a channel).
 */
typedef char dw3x3_stage_layout[(CH == 16 && ROW == 144 && OUT == 432 && TINYAOT_DW3X3_COLS == 9 &&
				 TINYAOT_DW3X3_RECORD == 8 && TINYAOT_DW3X3_LINE_RECORD == 6)
					? 1
					: -1];
typedef char tinyaot_line_shift[TINYAOT_LINE_SHIFT == 2 ? 1 : -1];
typedef char
	dw_group_layout[(offsetof(struct dw_group, k.zp4) == TINYAOT_DW_GROUP_K_ZP4 &&
			 offsetof(struct dw_group, k.ch) == TINYAOT_DW_GROUP_K_CH &&
			 offsetof(struct dw_group, k.cols) == TINYAOT_DW_GROUP_K_COLS &&
			 offsetof(struct dw_group, k.ja) == TINYAOT_DW_GROUP_K_JA &&
			 offsetof(struct dw_group, k.jb) == TINYAOT_DW_GROUP_K_JB &&
			 offsetof(struct dw_group, k.words) == TINYAOT_DW_GROUP_K_WORDS &&
			 offsetof(struct dw_group, rows) == TINYAOT_DW_GROUP_ROWS &&
			 offsetof(struct dw_group, records) == TINYAOT_DW_GROUP_RECORDS &&
			 offsetof(struct dw_group, out) == TINYAOT_DW_GROUP_OUT &&
			 offsetof(struct dw_group, n) == TINYAOT_DW_GROUP_N &&
			 offsetof(struct dw_group, fn) == TINYAOT_DW_GROUP_FN &&
			 offsetof(struct dw_group, p) == TINYAOT_DW_GROUP_P &&
			 offsetof(struct dw_group, chunks) == TINYAOT_DW_GROUP_CHUNKS &&
			 offsetof(struct dw_group, chunk_record) == TINYAOT_DW_GROUP_CHUNK_RECORD)
				? 1
				: -1];

/* tinyaot_dw3x3_stage for chunks of 16 or 8 channels of word-aligned input (k->words = 4 or
 * 2).
 */
void tinyaot_dw3x3_stage_t2(int8_t *slot, const int8_t *const rows[3], const struct dw_cols *k);

/*
 * Runs every chunk of a group whose chunks are all 16 channels, or one of 8, with word-aligned
 * input and output: the C loop of tinyaot_dwconv_fast_s8 without its per-chunk calls and tests.
 */
void tinyaot_dw3x3_chunks_t2(struct dw_group *g, int8_t *slot);
#define DW_STAGE_T2 1
#else
#define DW3X3_C(name, s, n, line)                                                                  \
	void name(const int32_t *records, int8_t *stage, int32_t width,                            \
		  const struct tinyaot_dwconv_fast_params *p)                                      \
	{                                                                                          \
		(void)width;                                                                       \
		(void)p;                                                                           \
		tinyaot_dw3x3_block(records, stage, n, s, -128, 127, line);                        \
	}
DW3X3_C(tinyaot_dw3x3_s1_n1, 1, 1, 0)
DW3X3_C(tinyaot_dw3x3_s1_n2, 1, 2, 0)
DW3X3_C(tinyaot_dw3x3_s1_n3, 1, 3, 0)
DW3X3_C(tinyaot_dw3x3_s1_n4, 1, 4, 0)
DW3X3_C(tinyaot_dw3x3_s1_n5, 1, 5, 0)
DW3X3_C(tinyaot_dw3x3_s1_n6, 1, 6, 0)
DW3X3_C(tinyaot_dw3x3_s2_n1, 2, 1, 0)
DW3X3_C(tinyaot_dw3x3_s2_n2, 2, 2, 0)
DW3X3_C(tinyaot_dw3x3_s2_n3, 2, 3, 0)
DW3X3_C(tinyaot_dw3x3_s2_n4, 2, 4, 0)
DW3X3_C(tinyaot_dw3x3_line_s1_n1, 1, 1, 1)
DW3X3_C(tinyaot_dw3x3_line_s1_n2, 1, 2, 1)
DW3X3_C(tinyaot_dw3x3_line_s1_n3, 1, 3, 1)
DW3X3_C(tinyaot_dw3x3_line_s1_n4, 1, 4, 1)
DW3X3_C(tinyaot_dw3x3_line_s1_n5, 1, 5, 1)
DW3X3_C(tinyaot_dw3x3_line_s1_n6, 1, 6, 1)
DW3X3_C(tinyaot_dw3x3_line_s2_n1, 2, 1, 1)
DW3X3_C(tinyaot_dw3x3_line_s2_n2, 2, 2, 1)
DW3X3_C(tinyaot_dw3x3_line_s2_n3, 2, 3, 1)
DW3X3_C(tinyaot_dw3x3_line_s2_n4, 2, 4, 1)
#define DW_STAGE_T2 0
#endif

#if defined(__GNUC__)
#define DW_ALIGNED(p, a) __builtin_assume_aligned(p, a)
#else
#define DW_ALIGNED(p, a) (p)
#endif
#if defined(__GNUC__) && !defined(__clang__)
/* Keeps GCC from turning the copy loops into calls to memcpy. */
#define DW_NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define DW_NO_LIBCALLS
#endif

/*
 * Whole chunks of 16 bytes between word-aligned addresses compile to one LDM and one STM;
 * otherwise memcpy of 4 bytes is one load or store (unaligned access is fine on Cortex-M3 and
 * up, and on the host).
 */

/*
 * The chunk's window: each of the 3 stage rows gets k->cols columns, the input's columns
 * [ja, jb) from rows[r] (column ja's first channel) and the zero point elsewhere; a NULL row
 * is all padding. aligned: the input is word-aligned.
 */
static DW_NO_LIBCALLS void tinyaot_dw3x3_stage(int8_t *slot, const int8_t *const rows[3],
					       int32_t nc, const struct dw_cols *k, int aligned)
{
#if DW_STAGE_T2
	if (aligned && (nc == 16 || nc == 8)) {
		tinyaot_dw3x3_stage_t2(slot, rows, k);
		return;
	}
#else
	(void)aligned;
#endif
	for (int32_t r = 0; r < 3; r++) {
		int8_t *dst = slot + r * ROW;

		for (int32_t j = 0; j < k->cols; j++, dst += CH) {
			const int inside = rows[r] != NULL && j >= k->ja && j < k->jb;
			const int8_t *src = inside ? rows[r] + (j - k->ja) * k->ch : NULL;

			for (int32_t i = 0; i < nc; i += 4) {
				if (src != NULL) {
					memcpy(dst + i, src + i, 4);
				} else {
					memcpy(dst + i, &k->zp4, 4);
				}
			}
		}
	}
}

/* Copies a chunk's outputs from the stage's output slots to the output tensor. */
static DW_NO_LIBCALLS void tinyaot_dw3x3_write(int8_t *dst, int32_t ch, const int8_t *slot,
					       int32_t n, int32_t nc, int aligned)
{
	for (int32_t i = 0; i < n; i++, dst += ch, slot += CH) {
		if (aligned && nc == CH) {
			memcpy(DW_ALIGNED(dst, 4), DW_ALIGNED(slot, 4), CH);
			continue;
		}
		for (int32_t j = 0; j < nc; j += 4) {
			memcpy(dst + j, slot + j, 4);
		}
	}
}

DW_NO_LIBCALLS void tinyaot_dwconv_fast_s8(const struct tinyaot_dwconv_fast_params *p,
					   const int8_t *input, int8_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t ch = d->in_c;
	const int32_t s = d->stride_w;
	const int32_t row_bytes = d->in_w * ch;
	const int32_t per_row = (d->out_w + p->group - 1) / p->group;
	const int32_t lines = d->batches * d->out_h;
	/* Whole chunks can be read and written a word at a time (ch is a multiple of 4). */
	const int aligned = (uintptr_t)input % 4 == 0;
	const int aligned_out = (uintptr_t)output % 4 == 0;
	/* The stage, 16-byte aligned for the block routines' end test. */
	union {
		uint32_t word;
		int8_t b[OUT + WIDEST * CH + CH - 1];
	} raw;
	int8_t *const stage = raw.b + ((CH - (uintptr_t)raw.b % CH) % CH);
	struct dw_group g;

#if DW_STAGE_T2
	/* The chunk loop in assembly: chunks all of 16 channels, or one of 8. */
	const int t2 = aligned && aligned_out && (ch % CH == 0 || ch == 8);
#endif

	const int32_t record = p->line ? TINYAOT_DW3X3_LINE_RECORD : TINYAOT_DW3X3_RECORD;

	g.k.zp4 = ((uint32_t)p->zero_point & 0xffu) * 0x01010101u;
	g.chunk_record = CH * 4 * record;
	g.k.ch = ch;
	g.p = p;
	for (int32_t t = 0; t < lines; t++) {
		const int32_t line = d->reverse ? lines - 1 - t : t;
		const int32_t b = d->batches > 1 ? line / d->out_h : 0;
		const int32_t y0 = (line - b * d->out_h) * d->stride_h - d->pad_h;
		const int8_t *const in_b = input + b * d->in_h * row_bytes;
		/* The window's three input rows, NULL where padded. */
		const int8_t *row[3];

		for (int32_t r = 0; r < 3; r++) {
			const int32_t y = y0 + r;

			row[r] = y >= 0 && y < d->in_h ? in_b + y * row_bytes : NULL;
		}
		for (int32_t u = 0; u < per_row; u++) {
			const int32_t ox0 = (d->reverse ? per_row - 1 - u : u) * p->group;
			const int32_t x0 = ox0 * s - d->pad_w;

			g.n = ox0 + p->group < d->out_w ? p->group : d->out_w - ox0;
			g.fn = g.n == p->group ? p->block : p->tail;
			g.out = output + (line * d->out_w + ox0) * ch;
			g.records = p->records;
			g.k.cols = (g.n - 1) * s + 3;
			g.k.ja = x0 < 0 ? -x0 : 0;
			g.k.jb = x0 + g.k.cols > d->in_w ? d->in_w - x0 : g.k.cols;
			for (int32_t r = 0; r < 3; r++) {
				g.rows[r] = row[r] != NULL ? row[r] + (x0 + g.k.ja) * ch : NULL;
			}
#if DW_STAGE_T2
			if (t2) {
				g.k.words = ch == 8 ? 2 : 4;
				g.chunks = ch == 8 ? 1 : ch / CH;
				tinyaot_dw3x3_chunks_t2(&g, stage + (CH - 4 * g.k.words));
				continue;
			}
#endif
			for (int32_t c0 = 0; c0 < ch; c0 += CH) {
				const int32_t nc = ch - c0 < CH ? ch - c0 : CH;
				/* The chunk's channels take the last nc slots. */
				int8_t *const slot = stage + (CH - nc);

				g.k.words = nc / 4;
				tinyaot_dw3x3_stage(slot, g.rows, nc, &g.k, aligned);
				g.fn(p->records + record * c0, slot, g.n, p);
				tinyaot_dw3x3_write(g.out + c0, ch, slot + OUT, g.n, nc,
						    aligned_out);
				for (int32_t r = 0; r < 3; r++) {
					g.rows[r] = g.rows[r] != NULL ? g.rows[r] + CH : NULL;
				}
			}
		}
	}
}

/* The params the taps kernel reads per output, as values: through the pointer, every store
 * of an int8 output (which may alias anything) would make the compiler load them again.
 */
struct tinyaot_taps_run {
	const int32_t *table;
	const int8_t *weights;
	int32_t channels, words, line, act_min, act_max;
};

/* Channel c's output from its sum, requantised and clamped. */
static inline int8_t tinyaot_dwconv_taps_out(const struct tinyaot_taps_run r, const int32_t *q,
					     int32_t acc)
{
	const int32_t v = r.line ? tinyaot_requant_line(acc, q[1], q[2])
				 : tinyaot_requant_c(acc, q[1], q[2], q[3], q[4]);

	return (int8_t)tinyaot_clamp_i32(v, r.act_min, r.act_max);
}

/* Channels c to c + n - 1 (n 1 to 4) of one pixel, over its taps. */
static inline void tinyaot_dwconv_taps_chunk(const struct tinyaot_taps_run r,
					     const int8_t *const *tap, int32_t taps, int32_t c,
					     int32_t n, int8_t *out)
{
	const int32_t channels = r.channels;
	const int32_t words = r.words;
	const int32_t *q = r.table + c * words;
	const int8_t *w = r.weights + c;

	if (n == 4) {
		int32_t a0 = q[0], a1 = q[words], a2 = q[2 * words], a3 = q[3 * words];

		for (int32_t t = 0; t < taps; t++, w += channels) {
			const int8_t *x = tap[t] + c;

			a0 += w[0] * x[0];
			a1 += w[1] * x[1];
			a2 += w[2] * x[2];
			a3 += w[3] * x[3];
		}
		out[c] = tinyaot_dwconv_taps_out(r, q, a0);
		out[c + 1] = tinyaot_dwconv_taps_out(r, q + words, a1);
		out[c + 2] = tinyaot_dwconv_taps_out(r, q + 2 * words, a2);
		out[c + 3] = tinyaot_dwconv_taps_out(r, q + 3 * words, a3);
		return;
	}
	/* Every sum before the first store, as above: the output may overlap the taps (in place,
	 * a gap apart), and a store of channel j may land on a tap of channel j + 1.
	 */
	int32_t acc[4];

	for (int32_t j = 0; j < n; j++) {
		acc[j] = q[j * words];
		for (int32_t t = 0; t < taps; t++) {
			acc[j] += w[t * channels + j] * tap[t][c + j];
		}
	}
	for (int32_t j = 0; j < n; j++) {
		out[c + j] = tinyaot_dwconv_taps_out(r, q + j * words, acc[j]);
	}
}

#if TINYAOT_MVE_KERNELS
/*
 * Channels c to c + n - 1 (n 1 to 4) of one pixel with Helium: the four channels' sums in the
 * lanes, per tap one load of the inputs and one of the weights (under the predicate of n, which
 * reads nothing past the last channel), then the vector table's requantisation (the compiler
 * writes fast.vector_table there): TFLite's MultiplyByQuantizedMultiplier as VSHL, VQRDMULH and
 * VRSHL of x - 1 where x < 0 (RoundingDivideByPOT's half away from zero). All four sums are
 * taken before the store, as in tinyaot_dwconv_taps_chunk.
 */
static inline void tinyaot_dwconv_taps_mve(const struct tinyaot_taps_run r,
					   const int8_t *const *tap, int32_t taps, int32_t c,
					   int32_t n, int8_t *out)
{
	const mve_pred16_t live = vctp32q((uint32_t)n);
	const int32_t *v = r.table + 5 * c;
	const int8_t *w = r.weights + c;
	int32x4_t acc = vldrwq_s32(v);

	for (int32_t t = 0; t < taps; t++, w += r.channels) {
		acc = vaddq_s32(acc,
				vmulq_s32(vldrbq_z_s32(tap[t] + c, live), vldrbq_z_s32(w, live)));
	}
	acc = vqrdmulhq_s32(vshlq_s32(acc, vldrwq_s32(v + 4)), vldrwq_s32(v + 8));
	const int32x4_t right = vldrwq_s32(v + 12);

	acc = vrshlq_s32(vqaddq_s32(acc, vshrq_n_s32(vandq_s32(acc, right), 31)), right);
	acc = vaddq_s32(acc, vldrwq_s32(v + 16));
	acc = vmaxq_s32(vminq_s32(acc, vdupq_n_s32(r.act_max)), vdupq_n_s32(r.act_min));
	vstrbq_p_s32(out + c, acc, live);
}
#define TINYAOT_DWCONV_TAPS_CHUNK tinyaot_dwconv_taps_mve
#else
#define TINYAOT_DWCONV_TAPS_CHUNK tinyaot_dwconv_taps_chunk
#endif

void tinyaot_dwconv_taps_s8(const struct tinyaot_dwconv_taps_params *p, const int8_t *input,
			    int8_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t channels = d->in_c;
	const int32_t taps = d->k_h * d->k_w;
	/* The last chunk's channels: 1 to 4. */
	const int32_t rest = channels - 4 * ((channels - 1) / 4);
	const int8_t *tap[TINYAOT_DWCONV_TAPS_MAX];
	const struct tinyaot_taps_run r = {
		.table = p->table,
		.weights = p->weights,
		.channels = channels,
		.words = p->line ? 3 : 5,
		.line = p->line,
		.act_min = p->act_min,
		.act_max = p->act_max,
	};

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox;
		const int32_t pix = tinyaot_conv_pixel(d, i, pixels, &b, &oy, &ox);
		const int8_t *in_b = input + b * d->in_h * d->in_w * channels;
		const int32_t y0 = oy * d->stride_h - d->pad_h;
		const int32_t x0 = ox * d->stride_w - d->pad_w;
		int8_t *out = output + pix * channels;
		int32_t t = 0;

		for (int32_t ky = 0; ky < d->k_h; ky++) {
			const int32_t y = y0 + ky * d->dil_h;

			for (int32_t kx = 0; kx < d->k_w; kx++, t++) {
				const int32_t x = x0 + kx * d->dil_w;
				const int32_t inside =
					y >= 0 && y < d->in_h && x >= 0 && x < d->in_w;

				tap[t] = inside ? in_b + (y * d->in_w + x) * channels : p->zero_row;
			}
		}
		if (d->reverse) {
			TINYAOT_DWCONV_TAPS_CHUNK(r, tap, taps, channels - rest, rest, out);
			for (int32_t c = channels - rest - 4; c >= 0; c -= 4) {
				TINYAOT_DWCONV_TAPS_CHUNK(r, tap, taps, c, 4, out);
			}
		} else {
			for (int32_t c = 0; c < channels - rest; c += 4) {
				TINYAOT_DWCONV_TAPS_CHUNK(r, tap, taps, c, 4, out);
			}
			TINYAOT_DWCONV_TAPS_CHUNK(r, tap, taps, channels - rest, rest, out);
		}
	}
}
