/*
 * CONV_2D int8 with Helium (tinyaot/conv_fast.h): each pair of a job, its run pointers moved
 * pair_step bytes from the last, handed to a block loop (the one-pass loop takes them all at
 * once). tinyaot_conv_pairs_mve's is crt/src/mve/conv_blocks_mve.S, on weights in the layout
 * the compiler writes for it: per block, each channel's depth weights in a row, in (ky, kx, ic)
 * order, so run r's are the row's bytes r * len on. tinyaot_conv_pairs_mve16 and _mve16_relu's
 * is crt/src/mve/conv_quads_mve.S, on its own layout and table (see there). Blocks and pairs go
 * in the portable routine's order (tinyaot/conv_fast.h).
 */
#include <tinyaot/conv_fast.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
typedef void conv_mve_blocks_fn(const struct tinyaot_pair_job *job, const int8_t **run,
				int8_t *out_a, int8_t *out_b);

conv_mve_blocks_fn tinyaot_conv_mve_blocks;
conv_mve_blocks_fn tinyaot_conv_mve16_blocks;
conv_mve_blocks_fn tinyaot_conv_mve16_blocks_relu;

/* The block loops walk the pairs themselves, on a copy of the first pair's run pointers. */
static void tinyaot_conv_mve_job(const struct tinyaot_pair_job *job, conv_mve_blocks_fn *blocks)
{
	const int8_t *run[2 * TINYAOT_CONV_FAST_RUNS_MAX];
	const int32_t n = (int32_t)(job->runs_end - job->run);

	for (int32_t k = 0; k < n; k++) {
		run[k] = job->run[k];
	}
	blocks(job, run, job->out_a, job->out_b);
}

void tinyaot_conv_pairs_mve(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_mve_job(job, tinyaot_conv_mve_blocks);
}

void tinyaot_conv_pairs_mve16(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_mve_job(job, tinyaot_conv_mve16_blocks);
}

void tinyaot_conv_pairs_mve16_relu(const struct tinyaot_pair_job *job)
{
	tinyaot_conv_mve_job(job, tinyaot_conv_mve16_blocks_relu);
}
#endif
