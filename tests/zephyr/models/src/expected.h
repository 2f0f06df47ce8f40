/*
 * Expected outputs of one model, generated on the host by tests/zephyr/gen_expected.py with
 * the TFLite Micro interpreter.
 */
#ifndef EXPECTED_H_
#define EXPECTED_H_

#include <stddef.h>
#include <stdint.h>

/* One input set: the inputs are the xorshift32 stream from seed, filled input after input,
 * so that the target needs no stored inputs.
 */
struct expected_set {
	uint32_t seed;
	const void *const *outputs; /* one array per model output, in model order */
};

struct expected_model {
	const char *model; /* file stem, to tell a mismatched build from a wrong result */
	int32_t num_inputs;
	int32_t num_outputs;
	const size_t *input_sizes;  /* bytes */
	const size_t *output_sizes; /* bytes */
	int32_t num_sets;
	const struct expected_set *sets;
};

extern const struct expected_model expected;

#endif /* EXPECTED_H_ */
