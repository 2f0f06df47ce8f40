/*
 * Where the linked image put the model: the pinned arena (every input and output in it) in
 * the region of node blockram, the generated file's read-only data (model_info beside the
 * weights) in that of node psram. The models suite's test in the same image runs the model
 * there, bit-exact with TFLite Micro, which also shows that the weights were copied at boot.
 */
#include <stdint.h>

#include <zephyr/devicetree.h>
#include <zephyr/ztest.h>

#include <model.h>

#define ARENA_NODE   DT_NODELABEL(blockram)
#define WEIGHTS_NODE DT_NODELABEL(psram)

static bool inside(const void *p, size_t n, uintptr_t base, size_t size)
{
	uintptr_t at = (uintptr_t)p;

	return at >= base && n <= size && at - base <= size - n;
}

ZTEST(tinyaot_regions, test_arena_in_its_region)
{
	const uintptr_t base = DT_REG_ADDR(ARENA_NODE);
	const size_t size = DT_REG_SIZE(ARENA_NODE);

	for (int32_t i = 0; i < model_info.num_inputs; i++) {
		zassert_true(
			inside(model_input_ptr(NULL, i), model_info.inputs[i].size, base, size),
			"input %d at %p", i, model_input_ptr(NULL, i));
	}
	for (int32_t o = 0; o < model_info.num_outputs; o++) {
		zassert_true(
			inside(model_output_ptr(NULL, o), model_info.outputs[o].size, base, size),
			"output %d at %p", o, model_output_ptr(NULL, o));
	}
}

ZTEST(tinyaot_regions, test_weights_in_their_region)
{
	zassert_true(inside(&model_info, sizeof(model_info), DT_REG_ADDR(WEIGHTS_NODE),
			    DT_REG_SIZE(WEIGHTS_NODE)),
		     "model_info at %p", &model_info);
}

ZTEST_SUITE(tinyaot_regions, NULL, NULL, NULL, NULL, NULL);
