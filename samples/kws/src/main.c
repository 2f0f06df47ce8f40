/*
 * MLPerf Tiny keyword spotting (DS-CNN, int8), compiled into C at build time. Runs one fixed
 * input, prints the class and the cycles each layer took.
 */
#include <stdio.h>
#include <string.h>

#include <zephyr/kernel.h>

#include <kws.h>
#include <tinyaot/profile.h>
#include "expected.h"

/* The MLPerf Tiny KWS output order. */
static const char *const labels[] = {
	"down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes", "silence", "unknown",
};

struct layer {
	int32_t index;
	const char *op;
	uint32_t cycles;
};

static struct layer layers[32];
static size_t num_layers;

/* Overrides the runtime's weak hook. It only records: printing here would not skew the
 * figures (the runtime leaves the hook out of the timing) but would interleave with them.
 */
void tinyaot_profile_op(const char *model, int32_t index, const char *op, uint32_t cycles)
{
	ARG_UNUSED(model);
	if (num_layers < ARRAY_SIZE(layers)) {
		layers[num_layers++] = (struct layer){index, op, cycles};
	}
}

int main(void)
{
	if (kws_info.inputs[0].size != sizeof(kws_input)) {
		printf("kws: src/expected.h does not match the model\n");
		return 0;
	}
	memcpy(kws_input_ptr(NULL, 0), kws_input, sizeof(kws_input));
	num_layers = 0;
	const int err = kws_invoke(NULL);

	if (err != TINYAOT_OK) {
		printf("kws: kws_invoke failed: %d\n", err);
		return 0;
	}

	const int8_t *scores = kws_output_ptr(NULL, 0);
	size_t best = 0;

	for (size_t i = 1; i < ARRAY_SIZE(labels); i++) {
		best = scores[i] > scores[best] ? i : best;
	}
	/* Softmax output: scale 1/256, zero point -128. */
	printf("kws: class %u (%s), score %d/256\n", (unsigned int)best, labels[best],
	       scores[best] + 128);
	printf("kws: output %s the reference\n",
	       memcmp(scores, kws_expected, sizeof(kws_expected)) == 0 ? "matches"
								       : "DIFFERS FROM");

	uint64_t total = 0;

	for (size_t i = 0; i < num_layers; i++) {
		total += layers[i].cycles;
	}
	printf("%5s  %-20s %10s %6s\n", "index", "op", "cycles", "share");
	for (size_t i = 0; i < num_layers; i++) {
		printf("%5d  %-20s %10u %5u%%\n", (int)layers[i].index, layers[i].op,
		       (unsigned int)layers[i].cycles,
		       (unsigned int)(total ? layers[i].cycles * 100ULL / total : 0));
	}
	/* Ops that only relabel memory (RESHAPE) have no code, hence no line. */
	printf("kws: %u cycles, %u us at %u Hz, in %u timed layers of %d ops\n",
	       (unsigned int)total, (unsigned int)k_cyc_to_us_floor32((uint32_t)total),
	       (unsigned int)sys_clock_hw_cycles_per_sec(), (unsigned int)num_layers,
	       (int)kws_info.num_ops);
	return 0;
}
