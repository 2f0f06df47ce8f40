/* DEPTHWISE_CONV_2D int8, fast path; the element order is documented in tinyaot/dwconv_fast.h. */
#include <string.h>
#include <tinyaot/dwconv_fast.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>
#include <tinyaot/requant.h>

#define CH  TINYAOT_DWCONV_FAST_CHUNK
#define ROW TINYAOT_DW3X3_ROW
#define OUT TINYAOT_DW3X3_OUT

/* The widest group, which sizes the stage's output slots. */
#define WIDEST 6

static inline int32_t tinyaot_dw3x3_weight(const int32_t *record, int32_t k)
{
	return (int8_t)(uint8_t)((uint32_t)record[1 + k / 4] >> (8 * (k % 4)));
}

/* The portable block routine: the reference for the Thumb-2 ones below. */
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
/* The assembly below has the stage's geometry built in: rows 144 bytes apart, outputs at 432,
 * 9 columns.
 */
typedef char dw3x3_stage_layout[(CH == 16 && ROW == 144 && OUT == 432 && TINYAOT_DW3X3_COLS == 9)
					? 1
					: -1];

/*
 * Thumb-2 block routines, one per stride and width, written out by assembler macros: GCC
 * spills the C one's accumulators. r0 = records, r1 = stage. Per channel: r1 the bias (the
 * first product of every accumulator adds it; loading it moves r0 to the record's m, with the
 * weights 12 to 4 bytes below), r2-r7 the accumulators, r8-r10 a kernel row's
 * weights, r11 an input; then r8-r10 and ip the channel's m, h, e - 1 and c, r11 and r1
 * scratch; lr walks the stage's slots. Per output: 6 instructions of requantisation and store
 * (tinyaot_requant_c, SSAT). The line routines read m and h to r8 and r9 and take 4 per output
 * (a copy of h, SMLAL, SSAT, STRB; tinyaot_requant_line), 3 for the last, which takes h itself.
 */
__asm__(".altmacro\n"
	".macro tdw_mla acc, w, add\n\t"
	"mla r&acc, r&w, r11, r&add\n"
	".endm\n"
	/* Kernel row r of n outputs of stride s: its three weights, then each input column
	 * once, multiplied into every output whose window holds it.
	 */
	".macro tdw_row n, s, r\n\t"
	"ldrsb r8, [r0, #(r * 3 - 12)]\n\t"
	"ldrsb r9, [r0, #(r * 3 - 11)]\n\t"
	"ldrsb r10, [r0, #(r * 3 - 10)]\n\t"
	".set tdw_col, 0\n\t"
	".rept (n - 1) * s + 3\n\t"
	"ldrsb r11, [lr, #(r * 144 + tdw_col * 16)]\n\t"
	".set tdw_i, 0\n\t"
	".rept n\n\t"
	".set tdw_k, tdw_col - tdw_i * s\n\t"
	".if (tdw_k >= 0) && (tdw_k <= 2)\n\t"
	".if (r == 0) && (tdw_k == 0)\n\t"
	"tdw_mla %(2 + tdw_i), %(8 + tdw_k), 1\n\t"
	".else\n\t"
	"tdw_mla %(2 + tdw_i), %(8 + tdw_k), %(2 + tdw_i)\n\t"
	".endif\n\t"
	".endif\n\t"
	".set tdw_i, tdw_i + 1\n\t"
	".endr\n\t"
	".set tdw_col, tdw_col + 1\n\t"
	".endr\n"
	".endm\n"
	".macro tdw_out acc, off\n\t"
	"eor r11, ip, r&acc, asr #31\n\t"
	"add r1, r9, r&acc, asr #31\n\t"
	"smlal r11, r1, r&acc, r8\n\t"
	"asr r1, r1, r10\n\t"
	"ssat r1, #8, r1\n\t"
	"strb r1, [lr, #off]\n"
	".endm\n"
	".macro tdw_line acc, off, last\n\t"
	".if last\n\t"
	"smlal r&acc, r9, r&acc, r8\n\t"
	"ssat r9, #8, r9, asr #2\n\t"
	"strb r9, [lr, #off]\n\t"
	".else\n\t"
	"mov r1, r9\n\t"
	"smlal r&acc, r1, r&acc, r8\n\t"
	"ssat r1, #8, r1, asr #2\n\t"
	"strb r1, [lr, #off]\n\t"
	".endif\n"
	".endm\n"
	".macro tdw_fn name, n, s, line\n\t"
	".pushsection .text.\\name,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	".global \\name\n\t"
	".type \\name, %function\n\t"
	".thumb_func\n"
	"\\name:\n\t"
	"push {r4-r11, lr}\n\t"
	"mov lr, r1\n"
	"1:\n\t"
	"ldr r1, [r0], #16\n\t"
	"tdw_row n, s, 0\n\t"
	"tdw_row n, s, 1\n\t"
	"tdw_row n, s, 2\n\t"
	".set tdw_i, 0\n\t"
	".if line\n\t"
	"ldmia r0!, {r8, r9}\n\t"
	".rept n\n\t"
	"tdw_line %(2 + tdw_i), %(432 + tdw_i * 16), %(tdw_i == n - 1)\n\t"
	".set tdw_i, tdw_i + 1\n\t"
	".endr\n\t"
	".else\n\t"
	"ldmia r0!, {r8, r9, r10, ip}\n\t"
	".rept n\n\t"
	"tdw_out %(2 + tdw_i), %(432 + tdw_i * 16)\n\t"
	".set tdw_i, tdw_i + 1\n\t"
	".endr\n\t"
	".endif\n\t"
	"add lr, lr, #1\n\t"
	"tst lr, #15\n\t"
	"bne 1b\n\t"
	"pop {r4-r11, pc}\n\t"
	".size \\name, .-\\name\n\t"
	".popsection\n"
	".endm\n"
	"tdw_fn tinyaot_dw3x3_s1_n1, 1, 1, 0\n"
	"tdw_fn tinyaot_dw3x3_s1_n2, 2, 1, 0\n"
	"tdw_fn tinyaot_dw3x3_s1_n3, 3, 1, 0\n"
	"tdw_fn tinyaot_dw3x3_s1_n4, 4, 1, 0\n"
	"tdw_fn tinyaot_dw3x3_s1_n5, 5, 1, 0\n"
	"tdw_fn tinyaot_dw3x3_s1_n6, 6, 1, 0\n"
	"tdw_fn tinyaot_dw3x3_s2_n1, 1, 2, 0\n"
	"tdw_fn tinyaot_dw3x3_s2_n2, 2, 2, 0\n"
	"tdw_fn tinyaot_dw3x3_s2_n3, 3, 2, 0\n"
	"tdw_fn tinyaot_dw3x3_s2_n4, 4, 2, 0\n"
	"tdw_fn tinyaot_dw3x3_line_s1_n1, 1, 1, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s1_n2, 2, 1, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s1_n3, 3, 1, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s1_n4, 4, 1, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s1_n5, 5, 1, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s1_n6, 6, 1, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s2_n1, 1, 2, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s2_n2, 2, 2, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s2_n3, 3, 2, 1\n"
	"tdw_fn tinyaot_dw3x3_line_s2_n4, 4, 2, 1\n"
	".noaltmacro\n");

/*
 * tinyaot_dw3x3_stage_t2(slot, rows, k) is tinyaot_dw3x3_stage for chunks of 16 or 8 channels of
 * word-aligned input (k->words = 4 or 2): an LDM and an STM (LDRD and STRD) per column. r0 the
 * stage row, r1 rows, r2 the input row (0 when padding), r3 the zero point, r4-r7 a column, r8 =
 * k->ch, r9 = k->cols, r10 = k->ja, r11 = k->jb, ip a count, lr the stage column.
 */
void tinyaot_dw3x3_stage_t2(int8_t *slot, const int8_t *const rows[3], const struct dw_cols *k);

__asm__(".macro tdw_zero\n\t"
	"str r3, [lr]\n\t"
	"str r3, [lr, #4]\n\t"
	"str r3, [lr, #8]\n\t"
	"str r3, [lr, #12]\n\t"
	"add lr, lr, #16\n"
	".endm\n"
	/* A column of 16 channels, or of 8; the stage's columns are 16 bytes apart. */
	".macro tdw_copy16\n\t"
	"ldm r2, {r4-r7}\n\t"
	"add r2, r2, r8\n\t"
	"stm lr!, {r4-r7}\n"
	".endm\n"
	".macro tdw_copy8\n\t"
	"ldrd r4, r5, [r2]\n\t"
	"add r2, r2, r8\n\t"
	"strd r4, r5, [lr], #16\n"
	".endm\n"
	".macro tdw_stage_row copy\n\t"
	"ldr r2, [r1], #4\n\t"
	"mov lr, r0\n\t"
	"cbnz r2, 9f\n\t"
	"mov ip, r9\n\t"
	"b 3f\n"
	"9:\n\t"
	"movs ip, r10\n\t"
	"beq 2f\n"
	"1:\n\t"
	"tdw_zero\n\t"
	"subs ip, ip, #1\n\t"
	"bne 1b\n"
	"2:\n\t"
	"sub ip, r11, r10\n\t"
	/* The jb - ja (1 to TINYAOT_DW3X3_COLS) columns inside the input: straight copies,
	 * entered with TBB so that they end together, instead of a loop with a test a column.
	 */
	"tbb [pc, ip]\n"
	".Ltdw_t\\@:\n\t"
	".byte 0\n\t"
	".byte (.Ltdw_c1\\@ - .Ltdw_t\\@) / 2\n\t"
	".byte (.Ltdw_c2\\@ - .Ltdw_t\\@) / 2\n\t"
	".byte (.Ltdw_c3\\@ - .Ltdw_t\\@) / 2\n\t"
	".byte (.Ltdw_c4\\@ - .Ltdw_t\\@) / 2\n\t"
	".byte (.Ltdw_c5\\@ - .Ltdw_t\\@) / 2\n\t"
	".byte (.Ltdw_c6\\@ - .Ltdw_t\\@) / 2\n\t"
	".byte (.Ltdw_c7\\@ - .Ltdw_t\\@) / 2\n\t"
	".byte (.Ltdw_c8\\@ - .Ltdw_t\\@) / 2\n\t"
	".byte (.Ltdw_c9\\@ - .Ltdw_t\\@) / 2\n\t"
	".p2align 1\n"
	".Ltdw_c9\\@:\n\t"
	"\\copy\n"
	".Ltdw_c8\\@:\n\t"
	"\\copy\n"
	".Ltdw_c7\\@:\n\t"
	"\\copy\n"
	".Ltdw_c6\\@:\n\t"
	"\\copy\n"
	".Ltdw_c5\\@:\n\t"
	"\\copy\n"
	".Ltdw_c4\\@:\n\t"
	"\\copy\n"
	".Ltdw_c3\\@:\n\t"
	"\\copy\n"
	".Ltdw_c2\\@:\n\t"
	"\\copy\n"
	".Ltdw_c1\\@:\n\t"
	"\\copy\n"
	"subs ip, r9, r11\n\t"
	"beq 4f\n"
	"3:\n\t"
	"tdw_zero\n\t"
	"subs ip, ip, #1\n\t"
	"bne 3b\n"
	"4:\n\t"
	"add r0, r0, #144\n"
	".endm\n"
	".pushsection .text.tinyaot_dw3x3_stage_t2,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	".type tinyaot_dw3x3_stage_t2, %function\n\t"
	".thumb_func\n"
	"tinyaot_dw3x3_stage_t2:\n\t"
	"push {r4-r11, lr}\n\t"
	/* Where rows[] ends, on the stack: a loop over the three rows is 400 bytes less code
	 * than writing them out, for 3 instructions a row.
	 */
	"add r4, r1, #12\n\t"
	"push {r4}\n\t"
	"ldm r2, {r3, r8-r11, ip}\n\t"
	"cmp ip, #4\n\t"
	"bne 6f\n"
	"7:\n\t"
	"tdw_stage_row tdw_copy16\n\t"
	"ldr ip, [sp]\n\t"
	"cmp r1, ip\n\t"
	"bne 7b\n\t"
	"add sp, sp, #4\n\t"
	"pop {r4-r11, pc}\n"
	"6:\n\t"
	"tdw_stage_row tdw_copy8\n\t"
	"ldr ip, [sp]\n\t"
	"cmp r1, ip\n\t"
	"bne 6b\n\t"
	"add sp, sp, #4\n\t"
	"pop {r4-r11, pc}\n\t"
	".size tinyaot_dw3x3_stage_t2, .-tinyaot_dw3x3_stage_t2\n\t"
	".popsection\n");

/* The line requantisation's SSAT shifts by 2 (asr #2 above). */
typedef char tinyaot_line_shift[TINYAOT_LINE_SHIFT == 2 ? 1 : -1];

typedef char dw_group_layout
	[(offsetof(struct dw_group, rows) == 24 && offsetof(struct dw_group, records) == 36 &&
	  offsetof(struct dw_group, out) == 40 && offsetof(struct dw_group, n) == 44 &&
	  offsetof(struct dw_group, fn) == 48 && offsetof(struct dw_group, p) == 52 &&
	  offsetof(struct dw_group, chunks) == 56 && offsetof(struct dw_group, chunk_record) == 60)
		 ? 1
		 : -1];

/*
 * tinyaot_dw3x3_chunks_t2(g, slot) runs every chunk of a group whose chunks are all 16 channels, or
 * one of 8, with word-aligned input and output: stage (tinyaot_dw3x3_stage_t2), block routine, then
 * the outputs copied from the stage to the output tensor, an LDM and an STM each. It is the C
 * loop of tinyaot_dwconv_fast_s8 without its per-chunk calls and tests. r4 = g, r5 = slot,
 * r6 the chunks left; r7, r8, ip and lr carry the copies.
 */
void tinyaot_dw3x3_chunks_t2(struct dw_group *g, int8_t *slot);

__asm__(".pushsection .text.tinyaot_dw3x3_chunks_t2,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	".type tinyaot_dw3x3_chunks_t2, %function\n\t"
	".thumb_func\n"
	"tinyaot_dw3x3_chunks_t2:\n\t"
	"push {r4-r8, lr}\n\t"
	"mov r4, r0\n\t"
	"mov r5, r1\n\t"
	"ldr r6, [r4, #56]\n"
	"1:\n\t"
	"mov r0, r5\n\t"
	"add r1, r4, #24\n\t"
	"mov r2, r4\n\t"
	"bl tinyaot_dw3x3_stage_t2\n\t"
	"ldr r0, [r4, #36]\n\t"
	"mov r1, r5\n\t"
	"ldr r2, [r4, #44]\n\t"
	"ldr r3, [r4, #52]\n\t"
	"ldr ip, [r4, #48]\n\t"
	"blx ip\n\t"
	"ldr r0, [r4, #40]\n\t"
	"ldr r1, [r4, #4]\n\t"
	"add r2, r5, #432\n\t"
	"ldr r3, [r4, #44]\n\t"
	"ldr ip, [r4, #20]\n\t"
	/* The n (1 to 6) outputs: straight copies entered with TBB, the last without the step. */
	"cmp ip, #4\n\t"
	"bne 3f\n\t"
	"tbb [pc, r3]\n"
	".Ltdw_o16_t:\n\t"
	".byte 0\n\t"
	".byte (.Ltdw_o16_1 - .Ltdw_o16_t) / 2\n\t"
	".byte (.Ltdw_o16_2 - .Ltdw_o16_t) / 2\n\t"
	".byte (.Ltdw_o16_3 - .Ltdw_o16_t) / 2\n\t"
	".byte (.Ltdw_o16_4 - .Ltdw_o16_t) / 2\n\t"
	".byte (.Ltdw_o16_5 - .Ltdw_o16_t) / 2\n\t"
	".byte (.Ltdw_o16_6 - .Ltdw_o16_t) / 2\n\t"
	".p2align 1\n"
	".Ltdw_o16_6:\n\t"
	"ldm r2!, {r7, r8, ip, lr}\n\t"
	"stm r0, {r7, r8, ip, lr}\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o16_5:\n\t"
	"ldm r2!, {r7, r8, ip, lr}\n\t"
	"stm r0, {r7, r8, ip, lr}\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o16_4:\n\t"
	"ldm r2!, {r7, r8, ip, lr}\n\t"
	"stm r0, {r7, r8, ip, lr}\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o16_3:\n\t"
	"ldm r2!, {r7, r8, ip, lr}\n\t"
	"stm r0, {r7, r8, ip, lr}\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o16_2:\n\t"
	"ldm r2!, {r7, r8, ip, lr}\n\t"
	"stm r0, {r7, r8, ip, lr}\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o16_1:\n\t"
	"ldm r2!, {r7, r8, ip, lr}\n\t"
	"stm r0, {r7, r8, ip, lr}\n\t"
	"b 4f\n"
	"3:\n\t"
	"tbb [pc, r3]\n"
	".Ltdw_o8_t:\n\t"
	".byte 0\n\t"
	".byte (.Ltdw_o8_1 - .Ltdw_o8_t) / 2\n\t"
	".byte (.Ltdw_o8_2 - .Ltdw_o8_t) / 2\n\t"
	".byte (.Ltdw_o8_3 - .Ltdw_o8_t) / 2\n\t"
	".byte (.Ltdw_o8_4 - .Ltdw_o8_t) / 2\n\t"
	".byte (.Ltdw_o8_5 - .Ltdw_o8_t) / 2\n\t"
	".byte (.Ltdw_o8_6 - .Ltdw_o8_t) / 2\n\t"
	".p2align 1\n"
	".Ltdw_o8_6:\n\t"
	"ldrd r7, r8, [r2], #16\n\t"
	"strd r7, r8, [r0]\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o8_5:\n\t"
	"ldrd r7, r8, [r2], #16\n\t"
	"strd r7, r8, [r0]\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o8_4:\n\t"
	"ldrd r7, r8, [r2], #16\n\t"
	"strd r7, r8, [r0]\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o8_3:\n\t"
	"ldrd r7, r8, [r2], #16\n\t"
	"strd r7, r8, [r0]\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o8_2:\n\t"
	"ldrd r7, r8, [r2], #16\n\t"
	"strd r7, r8, [r0]\n\t"
	"add r0, r0, r1\n"
	".Ltdw_o8_1:\n\t"
	"ldrd r7, r8, [r2], #16\n\t"
	"strd r7, r8, [r0]\n\t"
	"4:\n\t"
	"subs r6, r6, #1\n\t"
	"beq 5f\n\t"
	/* The next chunk: 16 channels on in records, outputs and (where not padding) rows. */
	"ldr r0, [r4, #36]\n\t"
	"ldr r1, [r4, #60]\n\t"
	"add r0, r0, r1\n\t"
	"str r0, [r4, #36]\n\t"
	"ldr r0, [r4, #40]\n\t"
	"add r0, r0, #16\n\t"
	"str r0, [r4, #40]\n\t"
	"add ip, r4, #24\n\t"
	"ldm ip, {r0-r2}\n\t"
	"cmp r0, #0\n\t"
	"it ne\n\t"
	"addne r0, r0, #16\n\t"
	"cmp r1, #0\n\t"
	"it ne\n\t"
	"addne r1, r1, #16\n\t"
	"cmp r2, #0\n\t"
	"it ne\n\t"
	"addne r2, r2, #16\n\t"
	"stm ip, {r0-r2}\n\t"
	"b 1b\n"
	"5:\n\t"
	"pop {r4-r8, pc}\n\t"
	".size tinyaot_dw3x3_chunks_t2, .-tinyaot_dw3x3_chunks_t2\n\t"
	".popsection\n");
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

/* Channel c's output from its sum, requantised and clamped. */
static inline int8_t tinyaot_dwconv_taps_out(const struct tinyaot_dwconv_taps_params *p,
					     const int32_t *q, int32_t acc)
{
	const int32_t v = p->line ? tinyaot_requant_line(acc, q[1], q[2])
				  : tinyaot_requant_c(acc, q[1], q[2], q[3], q[4]);

	return (int8_t)tinyaot_clamp_i32(v, p->act_min, p->act_max);
}

/* Channels c to c + n - 1 (n 1 to 4) of one pixel, over its taps. */
static inline void tinyaot_dwconv_taps_chunk(const struct tinyaot_dwconv_taps_params *p,
					     const int8_t *const *tap, int32_t taps, int32_t c,
					     int32_t n, int8_t *out)
{
	const int32_t channels = p->d.in_c;
	const int32_t words = p->line ? 3 : 5;
	const int32_t *q = p->table + c * words;
	const int8_t *w = p->weights + c;

	if (n == 4) {
		int32_t a0 = q[0], a1 = q[words], a2 = q[2 * words], a3 = q[3 * words];

		for (int32_t t = 0; t < taps; t++, w += channels) {
			const int8_t *x = tap[t] + c;

			a0 += w[0] * x[0];
			a1 += w[1] * x[1];
			a2 += w[2] * x[2];
			a3 += w[3] * x[3];
		}
		out[c] = tinyaot_dwconv_taps_out(p, q, a0);
		out[c + 1] = tinyaot_dwconv_taps_out(p, q + words, a1);
		out[c + 2] = tinyaot_dwconv_taps_out(p, q + 2 * words, a2);
		out[c + 3] = tinyaot_dwconv_taps_out(p, q + 3 * words, a3);
		return;
	}
	for (int32_t j = 0; j < n; j++, q += words) {
		int32_t acc = q[0];

		for (int32_t t = 0; t < taps; t++) {
			acc += w[t * channels + j] * tap[t][c + j];
		}
		out[c + j] = tinyaot_dwconv_taps_out(p, q, acc);
	}
}

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

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox;
		const int32_t pix = tinyaot_conv_pixel(d, i, pixels, &b, &oy, &ox);
		const int8_t *in_b = input + b * d->in_h * d->in_w * channels;
		const int32_t y0 = oy * d->stride_h - d->pad_h;
		const int32_t x0 = ox * d->stride_w - d->pad_w;
		int8_t *out = output + pix * channels;
		int32_t t = 0;

		for (int32_t ky = 0; ky < d->k_h; ky++) {
			const int32_t y = y0 + ky;

			for (int32_t kx = 0; kx < d->k_w; kx++, t++) {
				const int32_t x = x0 + kx;
				const int32_t inside =
					y >= 0 && y < d->in_h && x >= 0 && x < d->in_w;

				tap[t] = inside ? in_b + (y * d->in_w + x) * channels : p->zero_row;
			}
		}
		if (d->reverse) {
			tinyaot_dwconv_taps_chunk(p, tap, taps, channels - rest, rest, out);
			for (int32_t c = channels - rest - 4; c >= 0; c -= 4) {
				tinyaot_dwconv_taps_chunk(p, tap, taps, c, 4, out);
			}
		} else {
			for (int32_t c = 0; c < channels - rest; c += 4) {
				tinyaot_dwconv_taps_chunk(p, tap, taps, c, 4, out);
			}
			tinyaot_dwconv_taps_chunk(p, tap, taps, channels - rest, rest, out);
		}
	}
}
