/*
 * Two models in two threads at once, each in an arena of its own, and the same two models
 * taking turns in the shared pool from one thread. Every output is compared byte for byte
 * with what the TFLite Micro interpreter computed on the host (expected.h).
 */
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/atomic.h>
#include <zephyr/ztest.h>

#include <pair_pool.h>
#include "expected.h"

/* Invocations per thread: every set four times at least. The faster model (micro_speech:
 * 3.7 runs to one of KWS's here) goes on while KWS has not done its share, up to its cap, so
 * that the two run side by side to the end; the caps end the test should the threads never
 * take turns.
 */
#define MIN_RUNS     (4 * EXPECTED_SETS)
#define KWS_MAX_RUNS (2 * MIN_RUNS)
#define MS_MAX_RUNS  (16 * MIN_RUNS)
/* The kernels keep their scratch on the stack: at most 1 KB on the corpus models. */
#define STACK_SIZE   2048
#define WORKER_PRIO  K_PRIO_PREEMPT(1)

struct model {
	const char *name;
	int (*invoke)(uint8_t *arena);
	void *(*input_ptr)(uint8_t *arena, int index);
	void *(*output_ptr)(uint8_t *arena, int index);
	const struct tinyaot_model_info *info;
	const int8_t *inputs;   /* EXPECTED_SETS sets, one after the other */
	const int8_t *expected; /* TFLite Micro's outputs for them */
	size_t input_size;
	size_t output_size;
	size_t arena_size;
};

static const struct model kws = {
	"kws",
	kws_invoke,
	kws_input_ptr,
	kws_output_ptr,
	&kws_info,
	kws_inputs,
	kws_expected,
	sizeof(kws_inputs) / EXPECTED_SETS,
	sizeof(kws_expected) / EXPECTED_SETS,
	KWS_ARENA_SIZE,
};

static const struct model micro_speech = {
	"micro_speech",
	micro_speech_invoke,
	micro_speech_input_ptr,
	micro_speech_output_ptr,
	&micro_speech_info,
	micro_speech_inputs,
	micro_speech_expected,
	sizeof(micro_speech_inputs) / EXPECTED_SETS,
	sizeof(micro_speech_expected) / EXPECTED_SETS,
	MICRO_SPEECH_ARENA_SIZE,
};

/* The first thing that went wrong in a series of runs. */
struct failure {
	int set; /* -1: nothing failed */
	int err; /* the invoke's result */
	int byte;
	int8_t got;
	int8_t want;
};

/* Runs one input set in this arena (NULL: the pool) and compares the output. */
static bool run_set(const struct model *m, uint8_t *arena, int set, struct failure *f)
{
	memcpy(m->input_ptr(arena, 0), m->inputs + set * m->input_size, m->input_size);
	const int err = m->invoke(arena);
	const int8_t *got = m->output_ptr(arena, 0);
	const int8_t *want = m->expected + set * m->output_size;

	*f = (struct failure){set, err, -1, 0, 0};
	if (err != TINYAOT_OK) {
		return false;
	}
	for (size_t i = 0; i < m->output_size; i++) {
		if (got[i] != want[i]) {
			*f = (struct failure){set, err, (int)i, got[i], want[i]};
			return false;
		}
	}
	f->set = -1;
	return true;
}

static bool within(const void *p, const uint8_t *buffer, size_t size)
{
	const uint8_t *b = p;

	return b >= buffer && b < buffer + size;
}

static void check(const struct model *m, const struct failure *f)
{
	zassert_equal(f->err, TINYAOT_OK, "%s: set %d: invoke failed: %d", m->name, f->set, f->err);
	zassert_equal(f->set, -1, "%s: set %d output byte %d: got %d, want %d", m->name, f->set,
		      f->byte, f->got, f->want);
}

struct worker {
	const struct model *model;
	uint8_t *arena;
	const struct worker *other;
	uint32_t max_runs;
	atomic_t runs; /* invocations done and checked, which the other thread watches */
	/* Own invocations during which the other thread completed one of its own: the two
	 * took turns inside it.
	 */
	uint32_t overlapped;
	struct failure failure;
};

static bool keep_going(const struct worker *w, uint32_t runs)
{
	const uint32_t other_runs = (uint32_t)atomic_get(&w->other->runs);

	return runs < w->max_runs && (runs < MIN_RUNS || other_runs < MIN_RUNS);
}

static void work(void *p1, void *p2, void *p3)
{
	ARG_UNUSED(p2);
	ARG_UNUSED(p3);
	struct worker *w = p1;

	for (uint32_t runs = 0; keep_going(w, runs); runs++) {
		const atomic_val_t seen = atomic_get(&w->other->runs);

		if (!run_set(w->model, w->arena, (int)(runs % EXPECTED_SETS), &w->failure)) {
			return;
		}
		if (atomic_get(&w->other->runs) != seen) {
			w->overlapped++;
		}
		atomic_inc(&w->runs);
	}
}

static uint8_t kws_arena[KWS_ARENA_SIZE] __aligned(KWS_ARENA_ALIGNMENT);
static uint8_t micro_speech_arena[MICRO_SPEECH_ARENA_SIZE] __aligned(MICRO_SPEECH_ARENA_ALIGNMENT);
static K_THREAD_STACK_ARRAY_DEFINE(stacks, 2, STACK_SIZE);
static struct k_thread threads[2];
static struct worker workers[2];

ZTEST(tinyaot_threads, test_layout_matches_expected_data)
{
	const struct model *models[] = {&kws, &micro_speech};

	for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
		const struct tinyaot_model_info *info = models[i]->info;

		zassert_equal(info->num_inputs, 1, "%s", models[i]->name);
		zassert_equal(info->num_outputs, 1, "%s", models[i]->name);
		zassert_equal(info->inputs[0].size, models[i]->input_size, "%s: input size",
			      models[i]->name);
		zassert_equal(info->outputs[0].size, models[i]->output_size, "%s: output size",
			      models[i]->name);
	}
}

ZTEST(tinyaot_threads, test_two_models_in_two_threads)
{
	workers[0] = (struct worker){&kws, kws_arena, &workers[1], KWS_MAX_RUNS};
	workers[1] = (struct worker){&micro_speech, micro_speech_arena, &workers[0], MS_MAX_RUNS};
	for (int i = 0; i < 2; i++) {
		workers[i].failure.set = -1;
		zassert_true(within(workers[i].model->input_ptr(workers[i].arena, 0),
				    workers[i].arena, workers[i].model->arena_size));
		k_thread_create(&threads[i], stacks[i], K_THREAD_STACK_SIZEOF(stacks[i]), work,
				&workers[i], NULL, NULL, WORKER_PRIO, 0, K_FOREVER);
	}
	/* This thread is cooperative: both workers are ready before either runs. */
	k_thread_start(&threads[0]);
	k_thread_start(&threads[1]);
	for (int i = 0; i < 2; i++) {
		zassert_ok(k_thread_join(&threads[i], K_FOREVER));
	}
	for (int i = 0; i < 2; i++) {
		const struct worker *w = &workers[i];
		const uint32_t runs = (uint32_t)atomic_get(&w->runs);
		size_t unused = 0;

		check(w->model, &w->failure);
		zassert_ok(k_thread_stack_space_get(&threads[i], &unused));
		TC_PRINT("%s: %u invocations in its own arena, all match TFLite Micro; %u of them "
			 "while %s completed one; stack %u of %u B used\n",
			 w->model->name, (unsigned int)runs, (unsigned int)w->overlapped,
			 w->other->model->name, (unsigned int)(STACK_SIZE - unused),
			 (unsigned int)STACK_SIZE);
		zassert_true(runs >= MIN_RUNS, "%s: %u invocations", w->model->name,
			     (unsigned int)runs);
		zassert_true(w->overlapped > 0, "%s never saw %s run during an invocation",
			     w->model->name, w->other->model->name);
	}
}

ZTEST(tinyaot_threads, test_two_models_take_turns_in_one_pool)
{
	const struct model *models[] = {&kws, &micro_speech};

	zassert_equal(PAIR_POOL_SIZE, MAX(KWS_ARENA_SIZE, MICRO_SPEECH_ARENA_SIZE));
	for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
		zassert_true(
			within(models[i]->input_ptr(NULL, 0), tinyaot_pool_pair, PAIR_POOL_SIZE),
			"%s", models[i]->name);
		zassert_true(
			within(models[i]->output_ptr(NULL, 0), tinyaot_pool_pair, PAIR_POOL_SIZE),
			"%s", models[i]->name);
	}
	/* Each model writes its input right before it runs: the other's run has overwritten
	 * what it left in the pool.
	 */
	for (int run = 0; run < 2 * EXPECTED_SETS; run++) {
		for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
			struct failure failure;

			run_set(models[i], NULL, run % EXPECTED_SETS, &failure);
			check(models[i], &failure);
		}
	}
	TC_PRINT("kws and micro_speech: %d invocations each in pool pair (%u B), all match "
		 "TFLite Micro\n",
		 2 * EXPECTED_SETS, (unsigned int)PAIR_POOL_SIZE);
}

ZTEST_SUITE(tinyaot_threads, NULL, NULL, NULL, NULL, NULL);
