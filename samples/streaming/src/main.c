/*
 * A streaming model: microWakeWord's voice-activity detector, which reads 30 ms of features
 * per invocation and keeps what it needs of the earlier ones in its state, outside the arena.
 * The sample feeds a stream of chunks, checks the detector's output after each against the
 * reference interpreter's over the same stream, then resets the state, as a product does
 * between utterances, and checks that the first chunk gives its first result again.
 */
#include <stdio.h>
#include <string.h>

#include <zephyr/kernel.h>

#include <vad.h>
#include "expected.h"

/* Feeds chunk i to the detector, carrying on from the state the previous invocations left,
 * and prints the output; true if it is the reference interpreter's.
 */
static bool feed(const char *label, size_t i, int8_t *features, const uint8_t *probability)
{
	const struct tinyaot_tensor_info *out = &vad_info.outputs[0];

	memcpy(features, &stream_features[i * STREAM_CHUNK_SIZE], STREAM_CHUNK_SIZE);
	const int err = vad_invoke(NULL);

	if (err != TINYAOT_OK) {
		printf("streaming: vad_invoke failed: %d\n", err);
		return false;
	}
	const bool ok = *probability == stream_expected[i];

	printf("%schunk %u (%s): speech probability %.3f (reference %.3f) %s\n", label,
	       (unsigned int)i + 1, stream_voiced[i] ? "voiced" : "quiet",
	       (double)((*probability - out->zero_point) * out->scale),
	       (double)((stream_expected[i] - out->zero_point) * out->scale), ok ? "ok" : "FAIL");
	return ok;
}

int main(void)
{
	/* Input and output live in the pinned arena, the state in the pinned state buffer. */
	int8_t *features = vad_input_ptr(NULL, 0);
	const uint8_t *probability = vad_output_ptr(NULL, 0);
	bool pass = true;

	printf("streaming: %s, arena %u B, state %u B, weights %u B, %d ops\n", vad_info.name,
	       (unsigned int)VAD_ARENA_SIZE, (unsigned int)VAD_STATE_SIZE,
	       (unsigned int)vad_info.weights_size, (int)vad_info.num_ops);
	for (size_t i = 0; i < STREAM_CHUNKS; i++) {
		pass &= feed("", i, features, probability);
	}
	/* Back to the state the model starts from: the stream that follows is a new one. */
	const int err = vad_reset(NULL);

	if (err != TINYAOT_OK) {
		printf("streaming: vad_reset failed: %d\n", err);
		pass = false;
	}
	pass &= feed("after reset: ", 0, features, probability);
	printf("streaming: %s\n", pass ? "PASS" : "FAIL");
	return 0;
}
