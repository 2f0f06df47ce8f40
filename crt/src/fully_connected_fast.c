/* FULLY_CONNECTED int8, fast path (tinyaot/fully_connected_fast.h). */
#include <stddef.h>
#include <tinyaot/asm_layout.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>
#include <tinyaot/fully_connected_fast.h>

#if TINYAOT_MVE_KERNELS
static void tinyaot_fc_run_blocks(const struct tinyaot_fc_fast_params *p,
				  const struct tinyaot_fc_blocks *k)
{
	tinyaot_fc_blocks_mve(p, k);
}
#elif TINYAOT_DSP_KERNELS
static void tinyaot_fc_run_blocks(const struct tinyaot_fc_fast_params *p,
				  const struct tinyaot_fc_blocks *k)
{
	tinyaot_fc_blocks_dsp(p, k);
}
#else
/* The blocks of one batch row; the assembly reads it at the offsets of tinyaot/asm_layout.h. */
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

#if TINYAOT_ASM_THUMB2
/* The block loop in Thumb-2 assembly, crt/src/thumb2/fc_routines.S, for the full int8 range;
 * it reads the job by the offsets of tinyaot/asm_layout.h.
 */
void tinyaot_fc_run_t2(struct fc_job *job);

typedef char fc_job_layout[(offsetof(struct fc_job, x) == TINYAOT_FC_JOB_X &&
			    offsetof(struct fc_job, depth) == TINYAOT_FC_JOB_DEPTH &&
			    offsetof(struct fc_job, weights) == TINYAOT_FC_JOB_WEIGHTS &&
			    offsetof(struct fc_job, table) == TINYAOT_FC_JOB_TABLE &&
			    offsetof(struct fc_job, out) == TINYAOT_FC_JOB_OUT &&
			    offsetof(struct fc_job, blocks) == TINYAOT_FC_JOB_BLOCKS)
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

static void tinyaot_fc_run_blocks(const struct tinyaot_fc_fast_params *p,
				  const struct tinyaot_fc_blocks *k)
{
	struct fc_job job = {
		.x = k->x,
		.depth = p->depth,
		.weights = k->weights,
		.table = k->table,
		.out = k->out,
		.blocks = k->blocks,
	};

	fc_run(&job, p->act_min, p->act_max);
}
#endif

void tinyaot_fc_fast_s8(const struct tinyaot_fc_fast_params *p, const int8_t *input, int8_t *output)
{
	const int32_t blocks = (p->units + 3) / 4;
	/* The blocks written in place, four outputs each; a last one of other units apart. */
	const int32_t whole = p->units % 4 ? blocks - 1 : blocks;
	const int32_t block_weights = 4 * p->depth;

	for (int32_t b = 0; b < p->batches; b++) {
		struct tinyaot_fc_blocks k = {
			.x = input + b * p->depth,
			.weights = p->weights,
			.table = p->table,
			.out = output + b * p->units,
			.blocks = whole,
		};
		int8_t *const row = k.out;
		int8_t few[4];

		if (whole > 0) {
			tinyaot_fc_run_blocks(p, &k);
		}
		if (whole == blocks) {
			continue;
		}
		k.weights += whole * block_weights;
		k.table += whole * 16;
		k.out = p->units > 4 ? row + p->units - 4 : few;
		k.blocks = 1;
		tinyaot_fc_run_blocks(p, &k);
		if (p->units < 4) {
			for (int32_t j = 0; j < p->units; j++) {
				row[j] = few[j];
			}
		}
	}
}
