/* Reference REDUCE_MAX and REDUCE_MIN (TFLM's ReduceGeneric): each output starts at the
 * type's lowest (highest) value and takes an input only when it is strictly greater
 * (smaller), in input order, so a NaN never replaces a float result.
 */
#include <float.h>

#include <tinyaot/reduce_minmax.h>

/* Input offset of element i of a row-major walk over dims (out or red of the shape). */
static int32_t tinyaot_walk(const struct tinyaot_mean_shape *s, const int32_t *dims, int32_t i)
{
	int32_t offset = 0;

	for (int32_t d = 3; d >= 0; d--) {
		offset += (i % dims[d]) * s->stride[d];
		i /= dims[d];
	}
	return offset;
}

static int32_t count(const int32_t *dims)
{
	return dims[0] * dims[1] * dims[2] * dims[3];
}

static void tinyaot_reduce_s8(const struct tinyaot_mean_shape *s, const int8_t *input,
			      int8_t *output, int32_t max)
{
	const int32_t outputs = count(s->out), reduced = count(s->red);

	for (int32_t o = 0; o < outputs; o++) {
		const int8_t *x = input + tinyaot_walk(s, s->out, o);
		int8_t acc = max ? INT8_MIN : INT8_MAX;

		for (int32_t r = 0; r < reduced; r++) {
			const int8_t v = x[tinyaot_walk(s, s->red, r)];

			acc = (max ? v > acc : v < acc) ? v : acc;
		}
		output[o] = acc;
	}
}

static void tinyaot_reduce_f32(const struct tinyaot_mean_shape *s, const float *input,
			       float *output, int32_t max)
{
	const int32_t outputs = count(s->out), reduced = count(s->red);

	for (int32_t o = 0; o < outputs; o++) {
		const float *x = input + tinyaot_walk(s, s->out, o);
		float acc = max ? -FLT_MAX : FLT_MAX;

		for (int32_t r = 0; r < reduced; r++) {
			const float v = x[tinyaot_walk(s, s->red, r)];

			acc = (max ? v > acc : v < acc) ? v : acc;
		}
		output[o] = acc;
	}
}

void tinyaot_reduce_max_s8(const struct tinyaot_reduce_minmax_params *p, const int8_t *input,
			   int8_t *output)
{
	tinyaot_reduce_s8(&p->s, input, output, 1);
}

void tinyaot_reduce_min_s8(const struct tinyaot_reduce_minmax_params *p, const int8_t *input,
			   int8_t *output)
{
	tinyaot_reduce_s8(&p->s, input, output, 0);
}

void tinyaot_reduce_max_f32(const struct tinyaot_reduce_minmax_params *p, const float *input,
			    float *output)
{
	tinyaot_reduce_f32(&p->s, input, output, 1);
}

void tinyaot_reduce_min_f32(const struct tinyaot_reduce_minmax_params *p, const float *input,
			    float *output)
{
	tinyaot_reduce_f32(&p->s, input, output, 0);
}
