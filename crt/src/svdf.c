/* TFLite Micro's EvalIntegerSvdfReference, in its order: the whole state shifted left by one
 * element, the feature products requantised (clamped to the state type, zero point 0) into
 * each filter's newest element, then per unit the bias plus the time products of its rank
 * filters, requantised to int8. The two state types share one body. The feature products are of
 * the stored input bytes, four filters at a time (tinyaot/dot_s8.h), with the input zero point
 * folded into a bias per filter by the compiler.
 */
#include <string.h>

#include <tinyaot/dot_s8.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/svdf.h>

/*
 * What memmove(state, state + size, bytes) does: every element of the state one place earlier. A
 * word at a time, read one element on (unaligned for int16 and int8 states, which Cortex-M3 and
 * up load in one LDR) and written one element back; each word is read before the bytes it
 * overlaps are written, and no write reaches past the word read last. memmove copied an int16
 * state an element at a time (about 5 Cortex-M3 instructions for 2 bytes).
 */
static void tinyaot_svdf_shift(uint8_t *state, size_t bytes, size_t size)
{
	size_t i = 0;

	for (; i + 4 <= bytes; i += 4) {
		uint32_t w;

		memcpy(&w, state + size + i, sizeof(w));
		memcpy(state + i, &w, sizeof(w));
	}
	for (; i < bytes; i++) {
		state[i] = state[size + i];
	}
}

#define TINYAOT_SVDF_BODY(T, LO, HI)                                                               \
	const int32_t filters = p->filters, memory = p->memory, units = p->filters / p->rank;      \
	const int32_t total = p->batches * filters * memory;                                       \
                                                                                                   \
	tinyaot_svdf_shift((uint8_t *)state, (size_t)(total - 1) * sizeof(T), sizeof(T));          \
	for (int32_t b = 0; b < p->batches; b++) {                                                 \
		const int8_t *in = input + b * p->input_size;                                      \
		T *st = state + b * filters * memory;                                              \
                                                                                                   \
		for (int32_t f = 0; f < filters; f += 4) {                                         \
			const int8_t *w = weights_feature + f * p->input_size;                     \
			const int32_t count = filters - f < 4 ? filters - f : 4;                   \
			int32_t dot[4] = {0, 0, 0, 0};                                             \
                                                                                                   \
			if (count == 4) {                                                          \
				tinyaot_dot4_s8(w, p->input_size, in, dot);                        \
			} else {                                                                   \
				for (int32_t g = 0; g < count; g++) {                              \
					dot[g] = tinyaot_dot_s8(w + g * p->input_size,             \
								p->input_size, in);                \
				}                                                                  \
			}                                                                          \
			for (int32_t g = 0; g < count; g++) {                                      \
				const int32_t v = tinyaot_mbqm(p->feature_bias[f + g] + dot[g],    \
							       p->mult1, p->shift1);               \
                                                                                                   \
				st[(f + g) * memory + memory - 1] =                                \
					(T)tinyaot_clamp_i32(v, LO, HI);                           \
			}                                                                          \
		}                                                                                  \
		for (int32_t u = 0; u < units; u++) {                                              \
			int32_t acc = bias != NULL ? bias[u] : 0;                                  \
                                                                                                   \
			for (int32_t r = 0; r < p->rank; r++) {                                    \
				const int32_t f = u * p->rank + r;                                 \
				uint32_t dot = 0;                                                  \
                                                                                                   \
				/* int16 states sum past int32 on loud inputs; TFLM's int32        \
				 * sums wrap on every target, so these do too. */                  \
				for (int32_t j = 0; j < memory; j++) {                             \
					dot += (uint32_t)(weights_time[f * memory + j] *           \
							  st[f * memory + j]);                     \
				}                                                                  \
				acc = (int32_t)((uint32_t)acc + dot);                              \
			}                                                                          \
			acc = tinyaot_mbqm(acc, p->mult2, p->shift2) + p->output_zero_point;       \
			output[b * units + u] = (int8_t)tinyaot_clamp_i32(acc, -128, 127);         \
		}                                                                                  \
	}

void tinyaot_svdf_s8_s16(const struct tinyaot_svdf_s8_params *p, const int8_t *input,
			 const int8_t *weights_feature, const int16_t *weights_time,
			 const int32_t *bias, int16_t *state, int8_t *output)
{
	TINYAOT_SVDF_BODY(int16_t, -32768, 32767)
}

void tinyaot_svdf_s8_s8(const struct tinyaot_svdf_s8_params *p, const int8_t *input,
			const int8_t *weights_feature, const int8_t *weights_time,
			const int32_t *bias, int8_t *state, int8_t *output)
{
	TINYAOT_SVDF_BODY(int8_t, -128, 127)
}

/* The float kernel's weights, or the hybrid kernel's int8 ones with their scales. */
struct tinyaot_svdf_weights_f32 {
	const float *feature, *time;
	const int8_t *feature_q, *time_q;
	float feature_scale, time_scale;
};

/* The dot product of n weights from `at` with x: float weights, or int8 ones (w_q set) read
 * as floats and the sum scaled once.
 */
static float tinyaot_svdf_dot(const float *w, const int8_t *w_q, float scale, int32_t at,
			      const float *x, int32_t n)
{
	float dot = 0.0f;

	if (w_q != NULL) {
		for (int32_t i = 0; i < n; i++) {
			dot += (float)w_q[at + i] * x[i];
		}
		return dot * scale;
	}
	for (int32_t i = 0; i < n; i++) {
		dot += w[at + i] * x[i];
	}
	return dot;
}

/* TFLite Micro's EvalFloatSvdfReference in its order: the state shifted, each filter's
 * feature sum into its newest element, then per unit the bias plus each of its rank filters'
 * time sum (each from 0, as TFLM's scratch row), then the activation clamp. No scratch row:
 * each time sum is added as soon as it is done, which changes no sum. The bias is required,
 * as TFLM's float kernel reads it unchecked.
 */
static void tinyaot_svdf_run_f32(const struct tinyaot_svdf_f32_params *p,
				 const struct tinyaot_svdf_weights_f32 *w, const float *input,
				 const float *bias, float *state, float *output)
{
	const int32_t filters = p->filters, memory = p->memory, units = p->filters / p->rank;
	const int32_t size = p->input_size;

	tinyaot_svdf_shift((uint8_t *)state,
			   (size_t)(p->batches * filters * memory - 1) * sizeof(float),
			   sizeof(float));
	for (int32_t b = 0; b < p->batches; b++) {
		float *st = state + b * filters * memory;

		for (int32_t f = 0; f < filters; f++) {
			st[f * memory + memory - 1] =
				tinyaot_svdf_dot(w->feature, w->feature_q, w->feature_scale,
						 f * size, input + b * size, size);
		}
		for (int32_t u = 0; u < units; u++) {
			float acc = bias[u];

			for (int32_t f = u * p->rank; f < (u + 1) * p->rank; f++) {
				acc += tinyaot_svdf_dot(w->time, w->time_q, w->time_scale,
							f * memory, st + f * memory, memory);
			}
			acc = acc < p->act_min ? p->act_min : acc;
			output[b * units + u] = acc > p->act_max ? p->act_max : acc;
		}
	}
}

void tinyaot_svdf_f32(const struct tinyaot_svdf_f32_params *p, const float *input,
		      const float *weights_feature, const float *weights_time, const float *bias,
		      float *state, float *output)
{
	const struct tinyaot_svdf_weights_f32 w = {
		weights_feature, weights_time, NULL, NULL, 1.0f, 1.0f,
	};

	tinyaot_svdf_run_f32(p, &w, input, bias, state, output);
}

void tinyaot_svdf_hybrid(const struct tinyaot_svdf_hybrid_params *p, const float *input,
			 const int8_t *weights_feature, const int8_t *weights_time,
			 const float *bias, float *state, float *output)
{
	const struct tinyaot_svdf_weights_f32 w = {
		NULL, NULL, weights_feature, weights_time, p->feature_scale, p->time_scale,
	};

	tinyaot_svdf_run_f32(&p->f, &w, input, bias, state, output);
}
