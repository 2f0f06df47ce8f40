/* TFLite Micro's LstmStep, in its order: per gate an input and a recurrent product (each
 * requantised to int16 and saturated, then added with saturation) and its activation; the
 * cell state forget x cell + input x cell gate, clipped; the hidden state tanh(cell) x output
 * gate; the output a copy of the hidden state. The int16 sigmoid and tanh are TFLite's:
 * interpolation in its 256-entry table of 2^16 sigmoid(i / 24), which tanh reads as
 * 2 sigmoid(2x) - 1. The float path keeps TFLite's summation order and calls the runtime's
 * float LOGISTIC and TANH, which follow TFLite's. The hybrid path (int8 weights, float32
 * activations) is the float one with each weight read as a float and each product's sum
 * scaled once by its weights' scale, as crt/src/hybrid.c does (README, "Hybrid float").
 */
#include <string.h>

#include <tinyaot/fixedpoint.h>
#include <tinyaot/logistic.h>
#include <tinyaot/lstm.h>
#include <tinyaot/unary.h>

/* The numbers of TFLite's table, a fit for interpolation that no closed form rounds to:
 * bit-exactness takes them as they are. The test reads them back from TFLite Micro's int16
 * TANH.
 */
static const uint16_t tinyaot_lstm_sigmoid_table[256] = {
	32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
	41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
	48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
	54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
	58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
	61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
	63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
	64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
	64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
	65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
	65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
	65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
	65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
	65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
	65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
	65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
	65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
	65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
	65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
	65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
};

#define TINYAOT_LSTM_FORGET 1
#define TINYAOT_LSTM_INPUT  0
#define TINYAOT_LSTM_CELL   2
#define TINYAOT_LSTM_OUTPUT 3

/* Q3.12 in, Q0.15 out: TFLite's int16 logistic with its power-of-two input (x 3, no shift). */
static int16_t tinyaot_lstm_sigmoid(int32_t v)
{
	const int32_t x = 3 * v;
	const uint32_t a = (uint32_t)(x < 0 ? -x : x);
	const uint32_t hi = a >> 9;
	uint32_t r = 0x7FFFu << 10;

	if (hi < 255) {
		const uint32_t lo = tinyaot_lstm_sigmoid_table[hi];

		r = (lo << 9) + (a & 0x1FFu) * (tinyaot_lstm_sigmoid_table[hi + 1] - lo);
	}
	r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
	return (int16_t)(r >> 10);
}

/* TFLite's int16 tanh: the input scaled by (mult, shift) into Q3.12 x 3, Q0.15 out. */
static int16_t tinyaot_lstm_tanh(int32_t v, int32_t mult, int32_t shift)
{
	const int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
	const int32_t x = (v * mult + round) >> shift;
	const uint32_t a = (uint32_t)(x < 0 ? -x : x);
	const uint32_t hi = a >> 8;
	int32_t r = 0xFFFF << 8;

	if (hi < 255) {
		const uint32_t lo = tinyaot_lstm_sigmoid_table[hi];

		r = (int32_t)((lo << 8) + (a & 0xFFu) * (tinyaot_lstm_sigmoid_table[hi + 1] - lo));
	}
	r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
	return (int16_t)(r >> 8);
}

static int16_t tinyaot_lstm_sat16(int32_t x)
{
	return (int16_t)tinyaot_clamp_i32(x, INT16_MIN, INT16_MAX);
}

/* One gate for every row: the two products requantised and added, then its activation. */
static void tinyaot_lstm_gate_s8(const struct tinyaot_lstm_s8_params *p, int32_t g, const int8_t *x,
				 const int8_t *h, const int8_t *input_weights,
				 const int8_t *recurrent_weights, const int32_t *bias, int16_t *out)
{
	const int32_t n = p->input_size, units = p->units;
	const int8_t *wi = input_weights + g * units * n;
	const int8_t *wr = recurrent_weights + g * units * units;

	for (int32_t r = 0; r < p->rows; r++) {
		for (int32_t u = 0; u < units; u++) {
			int32_t acc = bias[g * units + u];
			int32_t rec = 0;

			for (int32_t d = 0; d < n; d++) {
				acc += wi[u * n + d] * (x[r * n + d] - p->input_zero_point);
			}
			for (int32_t d = 0; d < units; d++) {
				rec += wr[u * units + d] *
				       (h[r * units + d] - p->hidden_zero_point);
			}
			const int32_t a = tinyaot_lstm_sat16(
				tinyaot_mbqm(acc, p->input_mult[g], p->input_shift[g]));
			const int32_t b = tinyaot_lstm_sat16(
				tinyaot_mbqm(rec, p->recurrent_mult[g], p->recurrent_shift[g]));
			const int32_t sum = tinyaot_lstm_sat16(a + b);

			/* The cell gate's tanh reads Q3.12 as the gates do: x 3, no shift. */
			out[r * units + u] = g == TINYAOT_LSTM_CELL ? tinyaot_lstm_tanh(sum, 3, 0)
								    : tinyaot_lstm_sigmoid(sum);
		}
	}
}

void tinyaot_lstm_s8(const struct tinyaot_lstm_s8_params *p, const int8_t *input,
		     const int8_t *input_weights, const int8_t *recurrent_weights,
		     const int32_t *bias, int8_t *hidden, int16_t *cell, int8_t *output,
		     int16_t *scratch)
{
	const int32_t size = p->rows * p->units;
	int16_t *forget = scratch, *gate = scratch + size, *cell_gate = scratch + 2 * size;

	for (int32_t s = 0; s < p->sequences; s++) {
		int8_t *h = hidden + s * size;
		int16_t *c = cell + s * size;

		for (int32_t t = 0; t < p->time_steps; t++) {
			const int32_t step = s * p->time_steps + t;
			const int8_t *x = input + step * p->rows * p->input_size;

			tinyaot_lstm_gate_s8(p, TINYAOT_LSTM_FORGET, x, h, input_weights,
					     recurrent_weights, bias, forget);
			tinyaot_lstm_gate_s8(p, TINYAOT_LSTM_INPUT, x, h, input_weights,
					     recurrent_weights, bias, gate);
			tinyaot_lstm_gate_s8(p, TINYAOT_LSTM_CELL, x, h, input_weights,
					     recurrent_weights, bias, cell_gate);
			for (int32_t i = 0; i < size; i++) {
				const int32_t kept = tinyaot_lstm_sat16(tinyaot_mbqm(
					forget[i] * c[i], p->forget_mult, p->forget_shift));
				const int32_t added = tinyaot_lstm_sat16(tinyaot_mbqm(
					gate[i] * cell_gate[i], p->update_mult, p->update_shift));
				int32_t v = tinyaot_lstm_sat16(kept + added);

				if (p->cell_clip >= 0) {
					v = tinyaot_clamp_i32(v, -p->cell_clip, p->cell_clip);
				}
				c[i] = (int16_t)v;
			}
			/* The output gate reads the hidden state before it changes. */
			tinyaot_lstm_gate_s8(p, TINYAOT_LSTM_OUTPUT, x, h, input_weights,
					     recurrent_weights, bias, gate);
			for (int32_t i = 0; i < size; i++) {
				const int32_t th = tinyaot_lstm_tanh(c[i], p->cell_tanh_mult,
								     p->cell_tanh_shift);
				const int32_t v = tinyaot_mbqm(th * gate[i], p->hidden_mult,
							       p->hidden_shift) +
						  p->hidden_zero_point;

				h[i] = (int8_t)tinyaot_clamp_i32(v, INT8_MIN, INT8_MAX);
			}
			memcpy(output + step * size, h, (size_t)size);
		}
	}
}

/* The float kernel's weights, or the hybrid kernel's int8 ones with a scale per gate. */
struct tinyaot_lstm_weights_f32 {
	const float *input, *recurrent;
	const int8_t *input_q, *recurrent_q;
	const float *input_scale, *recurrent_scale;
	const float *bias;
};

/* One gate for every row: TFLite's float FullyConnected sums (bias added last), the two
 * added, then its activation. Hybrid weights are read as floats and each sum scaled once.
 */
static void tinyaot_lstm_gate_f32(const struct tinyaot_lstm_f32_params *p,
				  const struct tinyaot_lstm_weights_f32 *w, int32_t g,
				  const float *x, const float *h, float *out)
{
	const int32_t n = p->input_size, units = p->units;

	for (int32_t r = 0; r < p->rows; r++) {
		for (int32_t u = 0; u < units; u++) {
			const int32_t wi = (g * units + u) * n, wr = (g * units + u) * units;
			float a = 0.0f, b = 0.0f;

			if (w->input_q != NULL) {
				for (int32_t d = 0; d < n; d++) {
					a += x[r * n + d] * (float)w->input_q[wi + d];
				}
				for (int32_t d = 0; d < units; d++) {
					b += h[r * units + d] * (float)w->recurrent_q[wr + d];
				}
				a *= w->input_scale[g];
				b *= w->recurrent_scale[g];
			} else {
				for (int32_t d = 0; d < n; d++) {
					a += x[r * n + d] * w->input[wi + d];
				}
				for (int32_t d = 0; d < units; d++) {
					b += h[r * units + d] * w->recurrent[wr + d];
				}
			}
			out[r * units + u] = (a + w->bias[g * units + u]) + b;
		}
	}
	const struct tinyaot_logistic_f32_params sigmoid = {p->rows * units};
	const struct tinyaot_unary_f32_params tanh = {p->rows * units};

	if (g == TINYAOT_LSTM_CELL) {
		tinyaot_tanh_f32(&tanh, out, out);
	} else {
		tinyaot_logistic_f32(&sigmoid, out, out);
	}
}

static void tinyaot_lstm_run_f32(const struct tinyaot_lstm_f32_params *p,
				 const struct tinyaot_lstm_weights_f32 *w, const float *input,
				 float *hidden, float *cell, float *output, float *scratch)
{
	const int32_t size = p->rows * p->units;
	float *forget = scratch, *gate = scratch + size, *cell_gate = scratch + 2 * size;
	const struct tinyaot_unary_f32_params tanh = {size};

	for (int32_t s = 0; s < p->sequences; s++) {
		float *h = hidden + s * size;
		float *c = cell + s * size;

		for (int32_t t = 0; t < p->time_steps; t++) {
			const int32_t step = s * p->time_steps + t;
			const float *x = input + step * p->rows * p->input_size;

			tinyaot_lstm_gate_f32(p, w, TINYAOT_LSTM_FORGET, x, h, forget);
			tinyaot_lstm_gate_f32(p, w, TINYAOT_LSTM_INPUT, x, h, gate);
			tinyaot_lstm_gate_f32(p, w, TINYAOT_LSTM_CELL, x, h, cell_gate);
			for (int32_t i = 0; i < size; i++) {
				float v = forget[i] * c[i] + gate[i] * cell_gate[i];

				if (p->cell_clip > 0.0f) {
					v = v > p->cell_clip
						    ? p->cell_clip
						    : (v < -p->cell_clip ? -p->cell_clip : v);
				}
				c[i] = v;
			}
			tinyaot_lstm_gate_f32(p, w, TINYAOT_LSTM_OUTPUT, x, h, gate);
			/* forget now holds tanh(cell) */
			tinyaot_tanh_f32(&tanh, c, forget);
			for (int32_t i = 0; i < size; i++) {
				h[i] = forget[i] * gate[i];
			}
			memcpy(output + step * size, h, (size_t)size * sizeof(float));
		}
	}
}

void tinyaot_lstm_f32(const struct tinyaot_lstm_f32_params *p, const float *input,
		      const float *input_weights, const float *recurrent_weights, const float *bias,
		      float *hidden, float *cell, float *output, float *scratch)
{
	const struct tinyaot_lstm_weights_f32 w = {
		input_weights, recurrent_weights, NULL, NULL, NULL, NULL, bias,
	};

	tinyaot_lstm_run_f32(p, &w, input, hidden, cell, output, scratch);
}

void tinyaot_lstm_hybrid(const struct tinyaot_lstm_hybrid_params *p, const float *input,
			 const int8_t *input_weights, const int8_t *recurrent_weights,
			 const float *bias, float *hidden, float *cell, float *output,
			 float *scratch)
{
	const struct tinyaot_lstm_weights_f32 w = {
		NULL, NULL, input_weights, recurrent_weights, p->input_scale, p->recurrent_scale,
		bias,
	};

	tinyaot_lstm_run_f32(&p->f, &w, input, hidden, cell, output, scratch);
}
