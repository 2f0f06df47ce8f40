/*
 * tinyaot runtime: the types shared by every generated model.
 *
 * Generated code includes this header; firmware includes the generated <name>.h,
 * which includes this one.
 */
#ifndef TINYAOT_TINYAOT_H_
#define TINYAOT_TINYAOT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TINYAOT_OK                   0
#define TINYAOT_ERR_INVALID_ARGUMENT (-1)
#define TINYAOT_ERR_MISALIGNED_ARENA (-2)
/* A kernel met input on which the interpreter fails its invoke (a detection box that decodes
 * empty, say); the invoke stops there.
 */
#define TINYAOT_ERR_KERNEL           (-3)

/* Generated code places arenas and tables with these; every compiler tinyaot targets
 * (gcc, clang, armclang) understands the GNU attribute syntax.
 */
#define TINYAOT_ALIGNED(n) __attribute__((aligned(n)))
#define TINYAOT_SECTION(s) __attribute__((section(s)))

enum tinyaot_dtype {
	TINYAOT_DTYPE_FLOAT32 = 0,
	TINYAOT_DTYPE_INT8 = 1,
	TINYAOT_DTYPE_UINT8 = 2,
	TINYAOT_DTYPE_INT16 = 3,
	TINYAOT_DTYPE_INT32 = 4,
	TINYAOT_DTYPE_INT64 = 5,
	TINYAOT_DTYPE_BOOL = 6,
	TINYAOT_DTYPE_UINT32 = 7,
	TINYAOT_DTYPE_UINT64 = 8,
};

struct tinyaot_tensor_info {
	const char *name; /* the TFLite tensor name */
	enum tinyaot_dtype dtype;
	int32_t ndim;
	const int32_t *shape;
	size_t size; /* bytes */
	float scale; /* 0 when not quantised */
	int32_t zero_point;
};

struct tinyaot_model_info {
	const char *name;
	size_t arena_size; /* bytes, inputs and outputs included */
	size_t arena_alignment;
	size_t weights_size; /* bytes of constant data */
	int32_t num_inputs;
	int32_t num_outputs;
	const struct tinyaot_tensor_info *inputs;
	const struct tinyaot_tensor_info *outputs;
	int32_t num_ops;
	uint64_t macs;
	size_t state_size; /* bytes kept between invocations, outside the arena (0: none) */
};

/* A tensor as a custom op's kernel sees it. data points into the arena, or at a constant
 * for a weight: a kernel writes only its outputs.
 */
struct tinyaot_custom_tensor {
	const struct tinyaot_tensor_info *info;
	void *data;
};

/* What the application's kernel of a custom op gets, as
 *     int tinyaot_custom_<code>(const struct tinyaot_custom_call *call);
 * (<code> is the op's custom code, each character a C identifier cannot hold made '_').
 * It returns TINYAOT_OK, or an error that <name>_invoke() and <name>_run() return at once.
 * Per-channel quantisation is not described: info holds the first scale and zero point.
 */
struct tinyaot_custom_call {
	const char *code;   /* the op's custom code, as in the .tflite */
	int32_t op_index;   /* the op's index in the model */
	int32_t num_inputs; /* present inputs (optional ones left out of the model skipped) */
	int32_t num_outputs;
	const struct tinyaot_custom_tensor *inputs;
	const struct tinyaot_custom_tensor *outputs;
	const uint8_t *options; /* the op's custom options (a flexbuffer, usually); NULL if none */
	size_t options_size;
};

#ifdef __cplusplus
}
#endif

#endif /* TINYAOT_TINYAOT_H_ */
