/*
 * Runs the model of this build on the seeded input sets and compares every output with what
 * the TFLite Micro interpreter computed on the host: int8 and other integer outputs byte for
 * byte, float32 within 1e-5 of the largest finite magnitude of each output, as
 * tests/closeness.py compares them on the host.
 */
#include <string.h>

#include <zephyr/ztest.h>

#include <model.h>
#include "expected.h"

#define FLOAT_RTOL 1e-5f

/* The same generator as gen_expected.py; it must stay bit-identical with it. */
static uint32_t xorshift32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

static void fill_input(const struct tinyaot_tensor_info *t, void *dst, uint32_t *state)
{
	if (t->dtype == TINYAOT_DTYPE_FLOAT32) {
		float *f = dst;

		/* 24 random bits scaled to [-1, 1): exact in float32 on both sides. */
		for (size_t i = 0; i < t->size / sizeof(float); i++) {
			f[i] = (float)(xorshift32(state) >> 8) * (1.0f / 8388608.0f) - 1.0f;
		}
	} else {
		zassert_true(t->dtype == TINYAOT_DTYPE_INT8 || t->dtype == TINYAOT_DTYPE_UINT8,
			     "input dtype %d has no generator", t->dtype);
		uint8_t *b = dst;

		for (size_t i = 0; i < t->size; i++) {
			b[i] = (uint8_t)(xorshift32(state) >> 24);
		}
	}
}

static float absf(float v)
{
	return v < 0.0f ? -v : v;
}

static uint32_t bits(float v)
{
	uint32_t b;

	memcpy(&b, &v, sizeof(b));
	return b;
}

/* v - v is 0 for a finite v and NaN for an infinity or a NaN, with no libm. */
static bool is_finite(float v)
{
	return v - v == 0.0f;
}

/* A NaN or an infinity must be the same on both sides; otherwise NaN fails every <=. */
static bool close_to(float got, float want, float tolerance)
{
	if (!is_finite(want)) {
		return got == want || (got != got && want != want);
	}
	return absf(got - want) <= tolerance;
}

static void check_float(int set, int index, const float *got, const float *want, size_t n)
{
	float scale = 0.0f;

	for (size_t i = 0; i < n; i++) {
		if (is_finite(want[i]) && absf(want[i]) > scale) {
			scale = absf(want[i]);
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* The message shows float bits, as printing floats would need a larger libc. */
		zassert_true(close_to(got[i], want[i], FLOAT_RTOL * scale),
			     "set %d output %d [%u]: got 0x%08x, want 0x%08x", set, index,
			     (unsigned int)i, (unsigned int)bits(got[i]),
			     (unsigned int)bits(want[i]));
	}
}

static void check_bytes(int set, int index, const uint8_t *got, const uint8_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		zassert_equal(got[i], want[i], "set %d output %d byte %u: got %d, want %d", set,
			      index, (unsigned int)i, got[i], want[i]);
	}
}

ZTEST(tinyaot_models, test_layout_matches)
{
	zassert_equal(model_info.num_inputs, expected.num_inputs, "expected data of another model");
	zassert_equal(model_info.num_outputs, expected.num_outputs,
		      "expected data of another model");
	for (int32_t i = 0; i < expected.num_inputs; i++) {
		zassert_equal(model_info.inputs[i].size, expected.input_sizes[i], "input %d size",
			      i);
	}
	for (int32_t i = 0; i < expected.num_outputs; i++) {
		zassert_equal(model_info.outputs[i].size, expected.output_sizes[i],
			      "output %d size", i);
	}
}

#if CONFIG_TINYAOT_ARENA_BUDGET > 0
/* A budget below the layer-by-layer arena gives a patch plan (tinyaot.patch.*) that fits it. */
ZTEST(tinyaot_models, test_arena_within_budget)
{
	zassert_true(model_info.arena_size <= CONFIG_TINYAOT_ARENA_BUDGET,
		     "arena of %u B over the budget of %u B", (unsigned int)model_info.arena_size,
		     (unsigned int)CONFIG_TINYAOT_ARENA_BUDGET);
}
#endif

ZTEST(tinyaot_models, test_outputs_match_tflite_micro)
{
	zassert_equal(model_info.num_outputs, expected.num_outputs,
		      "expected data of another model");
	for (int32_t s = 0; s < expected.num_sets; s++) {
		const struct expected_set *set = &expected.sets[s];
		uint32_t state = set->seed;

		for (int32_t i = 0; i < model_info.num_inputs; i++) {
			fill_input(&model_info.inputs[i], model_input_ptr(NULL, i), &state);
		}
		zassert_equal(model_invoke(NULL), TINYAOT_OK, "invoke failed");
		for (int32_t o = 0; o < model_info.num_outputs; o++) {
			const struct tinyaot_tensor_info *t = &model_info.outputs[o];
			const void *got = model_output_ptr(NULL, o);

			if (t->dtype == TINYAOT_DTYPE_FLOAT32) {
				check_float(s, o, got, set->outputs[o], t->size / sizeof(float));
			} else {
				check_bytes(s, o, got, set->outputs[o], t->size);
			}
		}
		TC_PRINT("%s: set %d of %d matches TFLite Micro\n", expected.model, s + 1,
			 expected.num_sets);
	}
}

ZTEST_SUITE(tinyaot_models, NULL, NULL, NULL, NULL, NULL);
