/* FULLY_CONNECTED int8, fast path (tinyaot/fully_connected_fast.h). */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>
#include <tinyaot/fully_connected_fast.h>

/* The blocks of one batch row; the assembly reads it by offset: keep the order. */
struct fc_job {
	const int8_t *x;       /* the row's inputs */
	int32_t depth;         /* their number */
	const int8_t *weights; /* the next block's weights */
	const int32_t *table;  /* the next block's table (16 int32) */
	int8_t *out;           /* the next block's outputs */
	int32_t blocks;        /* blocks left, at least 1 */
};

/* The portable version; also the reference of the assembly, and what runs when the activation
 * clamp is narrower than int8.
 */
static void fc_run_c(struct fc_job *job, int32_t lo, int32_t hi)
{
	for (; job->blocks > 0; job->blocks--) {
		const int32_t *t = job->table;
		const int8_t *w = job->weights;
		int32_t acc[4] = {t[0], t[1], t[2], t[3]};

		for (int32_t i = 0; i < job->depth; i++, w += 4) {
			const int32_t x = job->x[i];

			for (int32_t j = 0; j < 4; j++) {
				acc[j] += w[j] * x;
			}
		}
		for (int32_t j = 0; j < 4; j++) {
			const int32_t *q = t + 4 + 3 * j;

			job->out[j] = (int8_t)tinyaot_clamp_i32(
				tinyaot_requant(acc[j], q[0], q[1], q[2]), lo, hi);
		}
		job->weights = w;
		job->table = t + 16;
		job->out += 4;
	}
}

#if TINYAOT_ISA_THUMB2 && defined(__GNUC__)
/*
 * Thumb-2: r4-r7 the four accumulators, r1 the inputs, r3 the weights, r0 an input byte, lr a
 * weight; 9 instructions per input (4 MACs), unrolled 8 times. [sp] the job, [sp, #4] the end
 * of the unrolled part, [sp, #8] the end of the inputs.
 */
#define FC_STEP                                                                                    \
	"ldrsb r0, [r1], #1\n\t"                                                                   \
	"ldrsb lr, [r3], #1\n\t"                                                                   \
	"mla r4, lr, r0, r4\n\t"                                                                   \
	"ldrsb lr, [r3], #1\n\t"                                                                   \
	"mla r5, lr, r0, r5\n\t"                                                                   \
	"ldrsb lr, [r3], #1\n\t"                                                                   \
	"mla r6, lr, r0, r6\n\t"                                                                   \
	"ldrsb lr, [r3], #1\n\t"                                                                   \
	"mla r7, lr, r0, r7\n\t"

/* Accumulator a: tinyaot_requant() with the unit's mult, high and shift at r2 + M, H, E, SSAT,
 * written at r0 which moves on. r1, ip and lr are scratch.
 */
#define FC_OUT(a, M, H, E)                                                                         \
	"ldr r1, [r2, #" #M "]\n\t"                                                                \
	"ldr lr, [r2, #" #H "]\n\t"                                                                \
	"and ip, " a ", #0x80000000\n\t"                                                           \
	"add lr, lr, " a ", asr #31\n\t"                                                           \
	"eor ip, ip, #0x40000000\n\t"                                                              \
	"smlal ip, lr, " a ", r1\n\t"                                                              \
	"ldr ip, [r2, #" #E "]\n\t"                                                                \
	"asr lr, lr, ip\n\t"                                                                       \
	"ssat lr, #8, lr\n\t"                                                                      \
	"strb lr, [r0], #1\n\t"

void tinyaot_fc_run_t2(struct fc_job *job);

__asm__(".pushsection .text.tinyaot_fc_run_t2,\"ax\",%progbits\n\t"
	".syntax unified\n\t"
	".thumb\n\t"
	".p2align 2\n\t"
	".global tinyaot_fc_run_t2\n\t"
	".hidden tinyaot_fc_run_t2\n\t"
	".type tinyaot_fc_run_t2, %function\n\t"
	".thumb_func\n"
	"tinyaot_fc_run_t2:\n\t"
	"push {r4-r7, lr}\n\t"
	"sub sp, sp, #12\n\t"
	"str r0, [sp]\n"
	".Lfc_block:\n\t"
	"ldr r2, [r0, #12]\n\t"
	"ldm r2, {r4-r7}\n\t"
	"ldr r1, [r0, #0]\n\t"
	"ldr r3, [r0, #8]\n\t"
	"ldr r2, [r0, #4]\n\t"
	"add ip, r1, r2\n\t"
	"str ip, [sp, #8]\n\t"
	"bic r2, r2, #7\n\t"
	"add r2, r1, r2\n\t"
	"str r2, [sp, #4]\n\t"
	"cmp r1, r2\n\t"
	"beq .Lfc_tail\n"
	".Lfc_8:\n\t" FC_STEP FC_STEP FC_STEP FC_STEP FC_STEP FC_STEP FC_STEP FC_STEP
	"ldr ip, [sp, #4]\n\t"
	"cmp r1, ip\n\t"
	"bne .Lfc_8\n"
	".Lfc_tail:\n\t"
	"ldr ip, [sp, #8]\n\t"
	"cmp r1, ip\n\t"
	"beq .Lfc_done\n\t" FC_STEP "b .Lfc_tail\n"
	".Lfc_done:\n\t"
	"ldr ip, [sp]\n\t"
	"str r3, [ip, #8]\n\t"
	"ldr r2, [ip, #12]\n\t"
	"ldr r0, [ip, #16]\n\t" FC_OUT("r4", 16, 20, 24) FC_OUT("r5", 28, 32, 36)
		FC_OUT("r6", 40, 44, 48)
			FC_OUT("r7", 52, 56, 60) "ldr ip, [sp]\n\t"
						 "str r0, [ip, #16]\n\t"
						 "add r2, r2, #64\n\t"
						 "str r2, [ip, #12]\n\t"
						 "ldr r2, [ip, #20]\n\t"
						 "subs r2, r2, #1\n\t"
						 "str r2, [ip, #20]\n\t"
						 "mov r0, ip\n\t"
						 "bne .Lfc_block\n\t"
						 "add sp, sp, #12\n\t"
						 "pop {r4-r7, pc}\n\t"
						 ".size tinyaot_fc_run_t2, .-tinyaot_fc_run_t2\n\t"
						 ".popsection");

/* The assembly reads the job by these offsets. */
typedef char
	fc_job_layout[(offsetof(struct fc_job, x) == 0 && offsetof(struct fc_job, depth) == 4 &&
		       offsetof(struct fc_job, weights) == 8 &&
		       offsetof(struct fc_job, table) == 12 && offsetof(struct fc_job, out) == 16 &&
		       offsetof(struct fc_job, blocks) == 20)
			      ? 1
			      : -1];

static void fc_run(struct fc_job *job, int32_t lo, int32_t hi)
{
	if (lo == -128 && hi == 127) {
		tinyaot_fc_run_t2(job);
	} else {
		fc_run_c(job, lo, hi);
	}
}
#else
static void fc_run(struct fc_job *job, int32_t lo, int32_t hi)
{
	fc_run_c(job, lo, hi);
}
#endif

void tinyaot_fc_fast_s8(const struct tinyaot_fc_fast_params *p, const int8_t *input, int8_t *output)
{
	for (int32_t b = 0; b < p->batches; b++) {
		struct fc_job job = {
			.x = input + b * p->depth,
			.depth = p->depth,
			.weights = p->weights,
			.table = p->table,
			.out = output + b * p->units,
			.blocks = p->units / 4,
		};

		fc_run(&job, p->act_min, p->act_max);
	}
}
