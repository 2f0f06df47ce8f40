/*
 * MLPerf Tiny keyword spotting on the host: the Zephyr sample's model, input and reference
 * check, so that the compiled model can be tried without a Zephyr tree.
 */
#include <stdio.h>
#include <string.h>

#include <kws.h>
#include "expected.h"

static const char *const labels[] = {
	"down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes", "silence", "unknown",
};

int main(void)
{
	memcpy(kws_input_ptr(NULL, 0), kws_input, sizeof(kws_input));

	const int err = kws_invoke(NULL);

	if (err != TINYAOT_OK) {
		printf("kws: kws_invoke failed: %d\n", err);
		return 1;
	}

	const int8_t *scores = kws_output_ptr(NULL, 0);
	size_t best = 0;

	for (size_t i = 1; i < sizeof(labels) / sizeof(labels[0]); i++) {
		best = scores[i] > scores[best] ? i : best;
	}
	printf("kws: class %u (%s), score %d/256\n", (unsigned int)best, labels[best],
	       scores[best] + 128);
	printf("kws: arena %u bytes, weights %u bytes, %u ops, %llu MACs\n",
	       (unsigned int)kws_info.arena_size, (unsigned int)kws_info.weights_size,
	       (unsigned int)kws_info.num_ops, (unsigned long long)kws_info.macs);

	const int same = memcmp(scores, kws_expected, sizeof(kws_expected)) == 0;

	printf("kws: output %s the TFLite Micro reference\n", same ? "matches" : "DIFFERS FROM");
	return same ? 0 : 1;
}
