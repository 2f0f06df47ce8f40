/*
 * TFLite Micro behind the tinyaot model API, so that tests/cortex_m3/main.c times its
 * Invoke() exactly as it times a generated model's invoke (bench/tflm_firmware.py).
 *
 * The interpreter is created and its tensors allocated on the first call of any entry point:
 * main.c asks for the input pointer before its first timed invoke, so set-up is never timed.
 * Objects live in static storage constructed in place: the harness runs no C++ constructors.
 */
#include <new>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_resource_variable.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"
#include "tflm.h"
#include "tflm_ops.h"

namespace
{

using Resolver = tflite::MicroMutableOpResolver<TFLM_NUM_OPS>;

alignas(Resolver) unsigned char resolver_storage[sizeof(Resolver)];
alignas(tflite::MicroInterpreter) unsigned char interpreter_storage[sizeof(
	tflite::MicroInterpreter)];
tflite::MicroInterpreter *interpreter;
bool failed;

tflite::MicroInterpreter *get()
{
	if (interpreter == nullptr && !failed) {
		Resolver *resolver = new (resolver_storage) Resolver();
#define TFLM_ADD(method) failed = failed || resolver->method() != kTfLiteOk;
		TFLM_OPS(TFLM_ADD)
#undef TFLM_ADD
#if TFLM_NUM_RESOURCE_VARIABLES > 0
		/* As TFLite Micro's Python interpreter does for a model with VAR_HANDLE: the
		 * allocator and the variables live in the arena.
		 */
		tflite::MicroAllocator *allocator =
			tflite::MicroAllocator::Create(tflm_arena, tflm_info.arena_size);
		tflite::MicroInterpreter *it = new (interpreter_storage) tflite::MicroInterpreter(
			tflite::GetModel(tflm_model_data), *resolver, allocator,
			tflite::MicroResourceVariables::Create(allocator,
							       TFLM_NUM_RESOURCE_VARIABLES));
#else
		tflite::MicroInterpreter *it = new (interpreter_storage)
			tflite::MicroInterpreter(tflite::GetModel(tflm_model_data), *resolver,
						 tflm_arena, tflm_info.arena_size);
#endif
		failed = failed || it->AllocateTensors() != kTfLiteOk;
		if (!failed) {
			interpreter = it;
		}
	}
	return interpreter;
}

/* A failed set-up hands main.c the arena's start, so its checks report it, not a fault. */
uint8_t *tensor_data(TfLiteTensor *tensor)
{
	return tensor != nullptr ? tensor->data.uint8 : tflm_arena;
}

} // namespace

extern "C" uint8_t *tflm_input_ptr(void *ctx, int index)
{
	(void)ctx;
	tflite::MicroInterpreter *it = get();
	return tensor_data(it != nullptr ? it->input(static_cast<size_t>(index)) : nullptr);
}

extern "C" uint8_t *tflm_output_ptr(void *ctx, int index)
{
	(void)ctx;
	tflite::MicroInterpreter *it = get();
	return tensor_data(it != nullptr ? it->output(static_cast<size_t>(index)) : nullptr);
}

extern "C" int tflm_invoke(void *ctx)
{
	(void)ctx;
	tflite::MicroInterpreter *it = get();
	return it != nullptr && it->Invoke() == kTfLiteOk ? 0 : 1;
}
