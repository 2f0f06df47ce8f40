/* DEPTHWISE_CONV_2D int8, fast path; the element order is documented in tinyaot/dwconv_fast.h. */
#include <string.h>
#include <tinyaot/dwconv_fast.h>
#include <tinyaot/fixedpoint.h>

/* The staged window: 3 rows of up to 9 columns of a chunk of channels, at constant strides so
 * that the loads below have immediate offsets.
 */
#define CH   TINYAOT_DWCONV_FAST_CHUNK
#define COLS 9
#define ROW  (COLS * CH)

static inline int8_t dw_out(int32_t acc, const int32_t *t, int32_t lo, int32_t hi)
{
	const int32_t v = tinyaot_sat_s8(tinyaot_requant(acc, t[1], t[2], t[3]));

	return (int8_t)(v < lo ? lo : (v > hi ? hi : v));
}

/* One chunk of channels of a group: what the compute loop needs, nothing else. */
struct dw_chunk {
	const int8_t *stage; /* channel 0 of the chunk, column 0 of the window */
	const int8_t *w;     /* its weights, 9 per channel */
	const int32_t *t;    /* its table rows, 4 per channel */
	int8_t *o;           /* its first output */
	int32_t nc, n;       /* channels, outputs */
	int32_t ostride;     /* bytes between outputs (the channel count) */
	int32_t lo, hi;      /* the activation clamp */
};

#if defined(__GNUC__)
/* Kept out of line: inlined into the group loop, the compute gets spilled to the stack. */
#define DW_NOINLINE __attribute__((noinline))
#else
#define DW_NOINLINE
#endif

/* Four outputs of stride s (the window's columns are CH apart in the stage) from the
 * accumulators' start t[0], written ostride apart.
 */
#define DW_BLOCK4(s)                                                                               \
	do {                                                                                       \
		int32_t a0 = t[0], a1 = t[0], a2 = t[0], a3 = t[0];                                \
		const int8_t *q = p;                                                               \
		const int8_t *wr = w;                                                              \
		for (int32_t r = 0; r < 3; r++, q += ROW, wr += 3) {                               \
			const int32_t w0 = wr[0], w1 = wr[1], w2 = wr[2];                          \
			a0 += w0 * q[0] + w1 * q[CH] + w2 * q[2 * CH];                             \
			a1 += w0 * q[(s)*CH] + w1 * q[((s) + 1) * CH] + w2 * q[((s) + 2) * CH];    \
			a2 += w0 * q[2 * (s)*CH] + w1 * q[(2 * (s) + 1) * CH] +                    \
			      w2 * q[(2 * (s) + 2) * CH];                                          \
			a3 += w0 * q[3 * (s)*CH] + w1 * q[(3 * (s) + 1) * CH] +                    \
			      w2 * q[(3 * (s) + 2) * CH];                                          \
		}                                                                                  \
		o[0] = dw_out(a0, t, k->lo, k->hi);                                                \
		o[k->ostride] = dw_out(a1, t, k->lo, k->hi);                                       \
		o[2 * k->ostride] = dw_out(a2, t, k->lo, k->hi);                                   \
		o[3 * k->ostride] = dw_out(a3, t, k->lo, k->hi);                                   \
	} while (0)

/* One output. */
#define DW_ONE()                                                                                   \
	do {                                                                                       \
		int32_t a0 = t[0];                                                                 \
		const int8_t *q = p;                                                               \
		const int8_t *wr = w;                                                              \
		for (int32_t r = 0; r < 3; r++, q += ROW, wr += 3) {                               \
			a0 += wr[0] * q[0] + wr[1] * q[CH] + wr[2] * q[2 * CH];                    \
		}                                                                                  \
		o[0] = dw_out(a0, t, k->lo, k->hi);                                                \
	} while (0)

#define DW_CHUNK(s)                                                                                \
	for (int32_t c = 0; c < k->nc; c++) {                                                      \
		const int8_t *w = k->w + 9 * c;                                                    \
		const int32_t *t = k->t + 4 * c;                                                   \
		const int8_t *p = k->stage + c;                                                    \
		int8_t *o = k->o + c;                                                              \
		int32_t i = 0;                                                                     \
		for (; i + 4 <= k->n; i += 4, p += 4 * (s)*CH, o += 4 * k->ostride) {              \
			DW_BLOCK4(s);                                                              \
		}                                                                                  \
		for (; i < k->n; i++, p += (s)*CH, o += k->ostride) {                              \
			DW_ONE();                                                                  \
		}                                                                                  \
	}

static DW_NOINLINE void dw_chunk_s1(const struct dw_chunk *k)
{
	DW_CHUNK(1)
}

static DW_NOINLINE void dw_chunk_s2(const struct dw_chunk *k)
{
	DW_CHUNK(2)
}

#if defined(__GNUC__) && defined(__thumb2__)
/*
 * Thumb-2 versions of dw_chunk_s1/s2 for the int8 range clamp (GCC spills the C ones and
 * reloads the requantisation parameters after every byte store). r0 = k. Per channel: r3 the
 * next window in the stage, r2 the next output, ip the outputs left. Per block: r4-r7 the
 * accumulators, r8-r10 a kernel row's weights then the channel's mult, high and shift, r11 an
 * input then scratch, lr the stage row then scratch, r1 the weights then the output stride,
 * r0 the channel's table row. They modify k (stage, w, t, o, nc), which the caller resets.
 */
#define DW_W3                                                                                      \
	"ldrsb r8, [r1], #1\n\t"                                                                   \
	"ldrsb r9, [r1], #1\n\t"                                                                   \
	"ldrsb r10, [r1], #1\n\t"
#define DW_MLA(a, w) "mla " a ", " w ", r11, " a "\n\t"
#define DW_X(off)    "ldrsb r11, [lr, #" #off "]\n\t"

/* A kernel row of four outputs, stride 1 (columns 16 bytes apart in the stage). */
#define DW_ROW4_S1                                                                                 \
	DW_W3 DW_X(0) DW_MLA("r4", "r8") DW_X(16) DW_MLA("r4", "r9") DW_MLA("r5", "r8") DW_X(32)   \
		DW_MLA("r4", "r10") DW_MLA("r5", "r9") DW_MLA("r6", "r8") DW_X(48)                 \
			DW_MLA("r5", "r10") DW_MLA("r6", "r9") DW_MLA("r7", "r8") DW_X(64)         \
				DW_MLA("r6", "r10") DW_MLA("r7", "r9") DW_X(80)                    \
					DW_MLA("r7", "r10") "add lr, lr, #144\n\t"
/* Stride 2: nine columns. */
#define DW_ROW4_S2                                                                                 \
	DW_W3 DW_X(0) DW_MLA("r4", "r8") DW_X(16) DW_MLA("r4", "r9") DW_X(32) DW_MLA("r4", "r10")  \
		DW_MLA("r5", "r8") DW_X(48) DW_MLA("r5", "r9") DW_X(64) DW_MLA("r5", "r10")        \
			DW_MLA("r6", "r8") DW_X(80) DW_MLA("r6", "r9") DW_X(96)                    \
				DW_MLA("r6", "r10") DW_MLA("r7", "r8") DW_X(112)                   \
					DW_MLA("r7", "r9") DW_X(128)                               \
						DW_MLA("r7", "r10") "add lr, lr, #144\n\t"
#define DW_ROW2_S1                                                                                 \
	DW_W3 DW_X(0) DW_MLA("r4", "r8") DW_X(16) DW_MLA("r4", "r9") DW_MLA("r5", "r8") DW_X(32)   \
		DW_MLA("r4", "r10") DW_MLA("r5", "r9") DW_X(48)                                    \
			DW_MLA("r5", "r10") "add lr, lr, #144\n\t"
#define DW_ROW1                                                                                    \
	DW_W3 DW_X(0) DW_MLA("r4", "r8") DW_X(16) DW_MLA("r4", "r9") DW_X(32)                      \
		DW_MLA("r4", "r10") "add lr, lr, #144\n\t"

/* Starts a block: the weights, the table row, the bias in r4-r7, the stage row. */
#define DW_START                                                                                   \
	"ldr r0, [sp]\n\t"                                                                         \
	"ldr r1, [r0, #4]\n\t"                                                                     \
	"ldr r0, [r0, #8]\n\t"                                                                     \
	"ldr r4, [r0]\n\t"                                                                         \
	"mov r5, r4\n\t"                                                                           \
	"mov r6, r4\n\t"                                                                           \
	"mov r7, r4\n\t"                                                                           \
	"mov lr, r3\n\t"
/* The requantisation parameters and the output stride. */
#define DW_PARAMS                                                                                  \
	"ldr r8, [r0, #4]\n\t"                                                                     \
	"ldr r9, [r0, #8]\n\t"                                                                     \
	"ldr r10, [r0, #12]\n\t"                                                                   \
	"ldr r1, [sp]\n\t"                                                                         \
	"ldr r1, [r1, #24]\n\t"
/* tinyaot_requant() and SSAT of accumulator a, written at r2, which moves on by r1. */
#define DW_OUT(a)                                                                                  \
	"and r11, " a ", #0x80000000\n\t"                                                          \
	"add lr, r9, " a ", asr #31\n\t"                                                           \
	"eor r11, r11, #0x40000000\n\t"                                                            \
	"smlal r11, lr, " a ", r8\n\t"                                                             \
	"asr lr, lr, r10\n\t"                                                                      \
	"ssat lr, #8, lr\n\t"                                                                      \
	"strb lr, [r2]\n\t"                                                                        \
	"add r2, r2, r1\n\t"

/* The next channel: stage + 1, weights + 9, table + 4 rows, output + 1; loops over nc. */
#define DW_NEXT(L)                                                                                 \
	".L" L "_next:\n\t"                                                                        \
	"ldr r0, [sp]\n\t"                                                                         \
	"ldm r0, {r1, r2, r3, ip}\n\t"                                                             \
	"add r1, r1, #1\n\t"                                                                       \
	"add r2, r2, #9\n\t"                                                                       \
	"add r3, r3, #16\n\t"                                                                      \
	"add ip, ip, #1\n\t"                                                                       \
	"stm r0, {r1, r2, r3, ip}\n\t"                                                             \
	"ldr r1, [r0, #16]\n\t"                                                                    \
	"subs r1, r1, #1\n\t"                                                                      \
	"str r1, [r0, #16]\n\t"                                                                    \
	"bne .L" L "_ch\n\t"                                                                       \
	"add sp, sp, #8\n\t"                                                                       \
	"pop {r4-r11, pc}\n\t"

#define DW_FUNC(name, L)                                                                           \
	".pushsection .text." name ",\"ax\",%progbits\n\t"                                         \
	".syntax unified\n\t"                                                                      \
	".thumb\n\t"                                                                               \
	".p2align 2\n\t"                                                                           \
	".global " name "\n\t"                                                                     \
	".hidden " name "\n\t"                                                                     \
	".type " name ", %function\n\t"                                                            \
	".thumb_func\n" name ":\n\t"                                                               \
	"push {r4-r11, lr}\n\t"                                                                    \
	"sub sp, sp, #8\n\t"                                                                       \
	"str r0, [sp]\n"                                                                           \
	".L" L "_ch:\n\t"                                                                          \
	"ldr r0, [sp]\n\t"                                                                         \
	"ldr r3, [r0, #0]\n\t"                                                                     \
	"ldr r2, [r0, #12]\n\t"                                                                    \
	"ldr ip, [r0, #20]\n"

void tinyaot_dw_chunk_s1_t2(const struct dw_chunk *k);
void tinyaot_dw_chunk_s2_t2(const struct dw_chunk *k);

__asm__(DW_FUNC(
	"tinyaot_dw_chunk_s1_t2",
	"dw1") ".Ldw1_b4:\n\t"
	       "cmp ip, #4\n\t"
	       "blt .Ldw1_b2\n\t" DW_START DW_ROW4_S1 DW_ROW4_S1 DW_ROW4_S1 DW_PARAMS DW_OUT(
		       "r4") DW_OUT("r5") DW_OUT("r6")
		       DW_OUT("r7") "add r3, r3, #64\n\t"
				    "sub ip, ip, #4\n\t"
				    "b .Ldw1_b4\n"
				    ".Ldw1_b2:\n\t"
				    "cmp ip, #2\n\t"
				    "blt .Ldw1_b1\n\t" DW_START DW_ROW2_S1 DW_ROW2_S1 DW_ROW2_S1
					    DW_PARAMS DW_OUT("r4") DW_OUT(
						    "r5") "add r3, r3, #32\n\t"
							  "sub ip, ip, #2\n"
							  ".Ldw1_b1:\n\t"
							  "cmp ip, #0\n\t"
							  "beq .Ldw1_next\n\t" DW_START DW_ROW1
								  DW_ROW1 DW_ROW1 DW_PARAMS DW_OUT(
									  "r4")
									  DW_NEXT("dw1") ".size "
											 "tinyaot_"
											 "dw_chunk_"
											 "s1_t2, "
											 ".-"
											 "tinyaot_"
											 "dw_chunk_"
											 "s1_t2\n\t"
											 ".popsecti"
											 "on");

__asm__(DW_FUNC(
	"tinyaot_dw_chunk_s2_t2",
	"dw2") ".Ldw2_b4:\n\t"
	       "cmp ip, #4\n\t"
	       "blt .Ldw2_b1\n\t" DW_START DW_ROW4_S2 DW_ROW4_S2 DW_ROW4_S2 DW_PARAMS DW_OUT("r4")
		       DW_OUT("r5") DW_OUT("r6") DW_OUT(
			       "r7") "add r3, r3, #128\n\t"
				     "sub ip, ip, #4\n\t"
				     "b .Ldw2_b4\n"
				     ".Ldw2_b1:\n\t"
				     "cmp ip, #0\n\t"
				     "beq .Ldw2_next\n\t" DW_START DW_ROW1 DW_ROW1 DW_ROW1 DW_PARAMS
					     DW_OUT("r4") "add r3, r3, #32\n\t"
							  "sub ip, ip, #1\n\t"
							  "b .Ldw2_b1\n\t" DW_NEXT(
								  "dw2") ".size "
									 "tinyaot_dw_chunk_s2_t2, "
									 ".-tinyaot_dw_chunk_s2_"
									 "t2\n\t"
									 ".popsection");

/* The assembly reads k by these offsets. */
typedef char dw_chunk_layout
	[(offsetof(struct dw_chunk, stage) == 0 && offsetof(struct dw_chunk, w) == 4 &&
	  offsetof(struct dw_chunk, t) == 8 && offsetof(struct dw_chunk, o) == 12 &&
	  offsetof(struct dw_chunk, nc) == 16 && offsetof(struct dw_chunk, n) == 20 &&
	  offsetof(struct dw_chunk, ostride) == 24)
		 ? 1
		 : -1];

static void dw_chunk(struct dw_chunk *k, int32_t s)
{
	if (k->lo == -128 && k->hi == 127) {
		if (s == 1) {
			tinyaot_dw_chunk_s1_t2(k);
		} else {
			tinyaot_dw_chunk_s2_t2(k);
		}
	} else if (s == 1) {
		dw_chunk_s1(k);
	} else {
		dw_chunk_s2(k);
	}
}
#else
static void dw_chunk(struct dw_chunk *k, int32_t s)
{
	if (s == 1) {
		dw_chunk_s1(k);
	} else {
		dw_chunk_s2(k);
	}
}
#endif

/* Copies the columns [ja, jb) of a stage row from src (column ja's first channel, columns
 * ch bytes apart) and fills the other of its cols columns with the zero point. nc (4 to 16)
 * is a multiple of 4; memcpy of 4 bytes compiles to one load or store (unaligned access is
 * fine on Cortex-M3 and up), and the straight-line copies keep compilers from calling memcpy.
 */
static void dw_stage_row(int8_t *dst, const int8_t *src, int32_t ch, int32_t nc, int32_t cols,
			 int32_t ja, int32_t jb, uint32_t zp4)
{
	for (int32_t j = 0; j < cols; j++, dst += CH) {
		uint32_t v0 = zp4, v1 = zp4, v2 = zp4, v3 = zp4;

		if (j >= ja && j < jb) {
			memcpy(&v0, src, 4);
			if (nc > 4) {
				memcpy(&v1, src + 4, 4);
			}
			if (nc > 8) {
				memcpy(&v2, src + 8, 4);
			}
			if (nc > 12) {
				memcpy(&v3, src + 12, 4);
			}
			src += ch;
		}
		memcpy(dst, &v0, 4);
		memcpy(dst + 4, &v1, 4);
		memcpy(dst + 8, &v2, 4);
		memcpy(dst + 12, &v3, 4);
	}
}

void tinyaot_dwconv_fast_s8(const struct tinyaot_dwconv_fast_params *p, const int8_t *input,
			    int8_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t ch = d->in_c;
	const int32_t s = d->stride_w;
	const int32_t per_row = (d->out_w + p->group - 1) / p->group;
	const int32_t groups = d->batches * d->out_h * per_row;
	struct dw_chunk k;
	/* Four copies of the input zero point, for padded columns. */
	const uint32_t zp4 = ((uint32_t)p->zero_point & 0xffu) * 0x01010101u;
	int8_t stage[3 * ROW];
	int8_t buf[TINYAOT_DWCONV_FAST_BUF];

	k.ostride = ch;
	k.lo = p->act_min;
	k.hi = p->act_max;
	for (int32_t g = 0; g < groups; g++) {
		const int32_t gi = d->reverse ? groups - 1 - g : g;
		const int32_t line = gi / per_row;
		const int32_t ox0 = (gi - line * per_row) * p->group;
		const int32_t n = ox0 + p->group < d->out_w ? p->group : d->out_w - ox0;
		const int32_t b = line / d->out_h;
		const int32_t y0 = (line - b * d->out_h) * d->stride_h - d->pad_h;
		const int32_t x0 = ox0 * s - d->pad_w;
		const int32_t cols = (n - 1) * s + 3;
		/* The window's columns inside the input: [ja, jb). */
		const int32_t ja = x0 < 0 ? -x0 : 0;
		const int32_t jb = x0 + cols > d->in_w ? d->in_w - x0 : cols;
		const int8_t *in_b = input + b * d->in_h * d->in_w * ch;

		for (int32_t c0 = 0; c0 < ch; c0 += CH) {
			const int32_t nc = ch - c0 < CH ? ch - c0 : CH;

			/* The group's window for channels c0..c0+nc-1, the zero point outside. */
			for (int32_t r = 0; r < 3; r++) {
				const int32_t y = y0 + r;
				const int32_t valid = y >= 0 && y < d->in_h;

				dw_stage_row(stage + r * ROW,
					     in_b + (valid ? y * d->in_w + x0 + ja : 0) * ch + c0,
					     ch, nc, cols, valid ? ja : cols, valid ? jb : cols,
					     zp4);
			}
			k.stage = stage;
			k.w = p->weights + 9 * c0;
			k.t = p->table + 4 * c0;
			k.o = buf + c0;
			k.nc = nc;
			k.n = n;
			dw_chunk(&k, s);
		}
		memcpy(output + (line * d->out_w + ox0) * ch, buf, (size_t)(n * ch));
	}
}
