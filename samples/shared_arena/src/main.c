/*
 * Two speech models in one shared arena: MLPerf Tiny KWS (from prj.conf) and TFLM
 * micro_speech (from CMakeLists.txt), run in turns. Each run overwrites what the other left
 * in the pool, so each writes its input right before it runs.
 */
#include <stdio.h>
#include <string.h>

#include <zephyr/kernel.h>

#include <speech_pool.h>
#include "expected.h"

static const char *const kws_labels[] = {
	"down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes", "silence", "unknown",
};
static const char *const micro_speech_labels[] = {"silence", "unknown", "yes", "no"};

static bool in_pool(const void *p)
{
	const uint8_t *b = p;

	return b >= tinyaot_pool_speech && b < tinyaot_pool_speech + SPEECH_POOL_SIZE;
}

static size_t argmax(const int8_t *scores, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++) {
		best = scores[i] > scores[best] ? i : best;
	}
	return best;
}

/* Runs one model on its fixed input and prints its class; true if the output is the
 * reference interpreter's, byte for byte.
 */
static bool classify(const char *name, int (*invoke)(uint8_t *), void *input,
		     const void *input_data, size_t input_size, const int8_t *output,
		     const int8_t *expected, const char *const *labels, size_t num_labels)
{
	memcpy(input, input_data, input_size);
	const int err = invoke(NULL);

	if (err != TINYAOT_OK) {
		printf("%s: invoke failed: %d", name, err);
		return false;
	}
	const size_t best = argmax(output, num_labels);
	const bool same = memcmp(output, expected, num_labels) == 0;

	printf("%s: class %u (%s) %s", name, (unsigned int)best, labels[best],
	       same ? "ok" : "DIFFERS FROM THE REFERENCE");
	return same;
}

int main(void)
{
	bool pass = in_pool(kws_input_ptr(NULL, 0)) && in_pool(micro_speech_input_ptr(NULL, 0));

	printf("shared_arena: pool speech %u B for kws (%u B) and micro_speech (%u B); "
	       "separate arenas would take %u B\n",
	       (unsigned int)SPEECH_POOL_SIZE, (unsigned int)KWS_ARENA_SIZE,
	       (unsigned int)MICRO_SPEECH_ARENA_SIZE,
	       (unsigned int)(KWS_ARENA_SIZE + MICRO_SPEECH_ARENA_SIZE));
	for (int round = 1; round <= 3; round++) {
		printf("round %d: ", round);
		pass &= classify("kws", kws_invoke, kws_input_ptr(NULL, 0), kws_input,
				 sizeof(kws_input), kws_output_ptr(NULL, 0), kws_expected,
				 kws_labels, ARRAY_SIZE(kws_labels));
		printf(", ");
		pass &= classify("micro_speech", micro_speech_invoke,
				 micro_speech_input_ptr(NULL, 0), micro_speech_input,
				 sizeof(micro_speech_input), micro_speech_output_ptr(NULL, 0),
				 micro_speech_expected, micro_speech_labels,
				 ARRAY_SIZE(micro_speech_labels));
		printf("\n");
	}
	printf("shared_arena: %s\n", pass ? "PASS" : "FAIL");
	return 0;
}
