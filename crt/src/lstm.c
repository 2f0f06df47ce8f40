/* TFLite Micro's LstmStep, in its order (int8 and int16x8 through one body, as its templates
 * share it): per gate an input and a recurrent product (each requantised to int16 and
 * saturated, then added with saturation; int8 products of four units at a time, from
 * effective biases, by SMLAD on DSP cores and VMLADAVA with Helium) and its activation; the
 * cell state forget x cell + input x cell gate, clipped; the hidden state tanh(cell) x output
 * gate; the output a copy of the hidden state. The int16 sigmoid and tanh are those of the
 * int16 LOGISTIC and TANH (logistic.c). The float path keeps TFLite's summation order and
 * calls the runtime's float LOGISTIC and TANH, which follow TFLite's. The hybrid path (int8
 * weights, float32 activations) is the float one with each weight read as a float and each
 * product's sum scaled once by its weights' scale, as crt/src/hybrid.c does (README, "Hybrid
 * float").
 */
#include <string.h>

#include <tinyaot/dot_s8.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>
#include <tinyaot/logistic.h>
#include <tinyaot/lstm.h>
#include <tinyaot/unary.h>

#if TINYAOT_ISA_SAT
#include <arm_acle.h>
#endif
#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>
#endif

#define TINYAOT_LSTM_FORGET 1
#define TINYAOT_LSTM_INPUT  0
#define TINYAOT_LSTM_CELL   2
#define TINYAOT_LSTM_OUTPUT 3

/* One SSAT where the core has it: GCC compares and moves twice for the clamp. */
static inline int16_t tinyaot_lstm_sat16(int32_t x)
{
#if TINYAOT_ISA_SAT
	return (int16_t)__ssat(x, 16);
#else
	return (int16_t)tinyaot_clamp_i32(x, INT16_MIN, INT16_MAX);
#endif
}

static int64_t tinyaot_lstm_dot_s16(const int8_t *w, const int16_t *a, int32_t n,
				    int32_t zero_point)
{
	int64_t acc = 0;

	for (int32_t d = 0; d < n; d++) {
		acc += w[d] * (a[d] - zero_point);
	}
	return acc;
}

/* A gate's two products, requantised to int16, added and activated. */
static inline int16_t tinyaot_lstm_activate(int32_t g, int32_t a, int32_t b)
{
	const int32_t sum = tinyaot_lstm_sat16(tinyaot_lstm_sat16(a) + tinyaot_lstm_sat16(b));

	/* The cell gate's tanh reads Q3.12 as the gates do: x 3, no shift. */
	return g == TINYAOT_LSTM_CELL ? tinyaot_tanh16(3 * sum) : tinyaot_sigmoid16(3 * sum);
}

#if TINYAOT_MVE_KERNELS
static inline int32x4_t tinyaot_lstm_clamp4(int32x4_t x, int32_t lo, int32_t hi)
{
	return vmaxq_s32(vminq_s32(x, vdupq_n_s32(hi)), vdupq_n_s32(lo));
}

static inline int32x4_t tinyaot_lstm_sat16x4(int32x4_t x)
{
	return tinyaot_lstm_clamp4(x, INT16_MIN, INT16_MAX);
}

/* tinyaot_mbqm of four lanes: VQRDMULH is gemmlowp's SaturatingRoundingDoublingHighMul, and
 * VRSHL's round half up of x - 1 where x < 0 is RoundingDivideByPOT's half away from zero
 * (CMSIS-NN's arm_divide_by_power_of_two_mve); VSHL wraps as the scalar left shift does.
 */
static inline int32x4_t tinyaot_lstm_mbqm4(int32x4_t x, int32_t multiplier, int32_t shift)
{
	const int32_t left = shift > 0 ? shift : 0;
	const int32x4_t right = vdupq_n_s32(shift > 0 ? 0 : shift);

	x = vqrdmulhq_n_s32(vshlq_r_s32(x, left), multiplier);
	return vrshlq_s32(vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, right), 31)), right);
}

/* tinyaot_sigmoid16 (cell == 0) or tinyaot_tanh16 of four lanes: the table gathered at the
 * index clamped to 254, the lanes past it replaced by the scalar code's constant.
 */
static inline int32x4_t tinyaot_lstm_act4(int32x4_t x, int cell)
{
	const uint32x4_t a = vreinterpretq_u32_s32(vabsq_s32(x));
	const int bits = cell ? 8 : 9;
	const uint32x4_t hi = vshlq_r_u32(a, -bits);
	const uint32x4_t at = vminq_u32(hi, vdupq_n_u32(254));
	const uint32x4_t lo = vldrhq_gather_shifted_offset_u32(tinyaot_sigmoid_table, at);
	const uint32x4_t up = vldrhq_gather_shifted_offset_u32(tinyaot_sigmoid_table + 1, at);
	const uint32x4_t frac = vandq_u32(a, vdupq_n_u32((1u << bits) - 1u));
	const mve_pred16_t positive = vcmpgeq_n_s32(x, 0);
	int32x4_t r = vreinterpretq_s32_u32(
		vpselq_u32(vdupq_n_u32(cell ? 0xFFFFu << 8 : 0x7FFFu << 10),
			   vaddq_u32(vshlq_r_u32(lo, bits), vmulq_u32(frac, vsubq_u32(up, lo))),
			   vcmpcsq_n_u32(hi, 255)));

	if (cell) {
		r = vpselq_s32(vaddq_n_s32(r, -(1 << 23) + (1 << 7)),
			       vsubq_s32(vdupq_n_s32((1 << 23) + (1 << 7) - 1), r), positive);
		return vshrq_n_s32(r, 8);
	}
	r = vpselq_s32(vaddq_n_s32(r, 1 << 9), vsubq_s32(vdupq_n_s32((1 << 25) + (1 << 9) - 1), r),
		       positive);
	return vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(r), 10));
}

/* The cell state's update, four cells at a time (the last under a tail predicate). */
static void tinyaot_lstm_cell4(const struct tinyaot_lstm_s8_params *p, const int16_t *forget,
			       const int16_t *gate, const int16_t *cell_gate, int16_t *c,
			       int32_t size)
{
	for (int32_t i = 0; i < size; i += 4) {
		const mve_pred16_t tail = vctp32q((uint32_t)(size - i));
		const int32x4_t kept = tinyaot_lstm_mbqm4(
			vmulq_s32(vldrhq_z_s32(forget + i, tail), vldrhq_z_s32(c + i, tail)),
			p->forget_mult, p->forget_shift);
		const int32x4_t added = tinyaot_lstm_mbqm4(
			vmulq_s32(vldrhq_z_s32(gate + i, tail), vldrhq_z_s32(cell_gate + i, tail)),
			p->update_mult, p->update_shift);
		int32x4_t v = tinyaot_lstm_sat16x4(
			vaddq_s32(tinyaot_lstm_sat16x4(kept), tinyaot_lstm_sat16x4(added)));

		if (p->cell_clip >= 0) {
			v = tinyaot_lstm_clamp4(v, -p->cell_clip, p->cell_clip);
		}
		vstrhq_p_s32(c + i, v, tail);
	}
}

/* The hidden state tanh(cell) x output gate, four at a time, clamped to [lo, hi]. */
static void tinyaot_lstm_hidden4(const struct tinyaot_lstm_s8_params *p, const int16_t *c,
				 const int16_t *gate, void *h, int wide, int32_t size, int32_t lo,
				 int32_t hi)
{
	const int32_t shift = p->cell_tanh_shift;
	const int32x4_t round = vdupq_n_s32(shift > 0 ? 1 << (shift - 1) : 0);

	for (int32_t i = 0; i < size; i += 4) {
		const mve_pred16_t tail = vctp32q((uint32_t)(size - i));
		const int32x4_t x = vshlq_r_s32(
			vaddq_s32(vmulq_n_s32(vldrhq_z_s32(c + i, tail), p->cell_tanh_mult), round),
			-shift);
		const int32x4_t th = tinyaot_lstm_act4(x, 1);
		int32x4_t v =
			vaddq_n_s32(tinyaot_lstm_mbqm4(vmulq_s32(th, vldrhq_z_s32(gate + i, tail)),
						       p->hidden_mult, p->hidden_shift),
				    p->hidden_zero_point);

		v = tinyaot_lstm_clamp4(v, lo, hi);
		if (wide) {
			vstrhq_p_s32((int16_t *)h + i, v, tail);
		} else {
			vstrbq_p_s32((int8_t *)h + i, v, tail);
		}
	}
}
#endif

/* One gate for every row, int8 activations: bias holds the input products' biases, then the
 * recurrent products' (4 x units each, zero points folded in).
 */
static void tinyaot_lstm_gate_s8(const struct tinyaot_lstm_s8_params *p, int32_t g, const int8_t *x,
				 const int8_t *h, const int8_t *input_weights,
				 const int8_t *recurrent_weights, const int32_t *bias, int16_t *out)
{
	const int32_t n = p->input_size, units = p->units;
	const int32_t mi = p->input_mult[g], si = p->input_shift[g];
	const int32_t mr = p->recurrent_mult[g], sr = p->recurrent_shift[g];
	const int8_t *wi = input_weights + g * units * n;
	const int8_t *wr = recurrent_weights + g * units * units;
	const int32_t *bi = bias + g * units, *br = bias + (4 + g) * units;

	for (int32_t r = 0; r < p->rows; r++) {
		const int8_t *xr = x + r * n, *hr = h + r * units;
		int32_t u = 0;

		for (; u + 4 <= units; u += 4) {
			int32_t in[4] = {bi[u], bi[u + 1], bi[u + 2], bi[u + 3]};
			int32_t rec[4] = {br[u], br[u + 1], br[u + 2], br[u + 3]};

			tinyaot_dot4_blocked_s8(wi + u * n, n, xr, in);
			tinyaot_dot4_blocked_s8(wr + u * units, units, hr, rec);
#if TINYAOT_MVE_KERNELS
			/* The four units' requantisations, sums and activations in the lanes. */
			const int32x4_t sum = tinyaot_lstm_sat16x4(vaddq_s32(
				tinyaot_lstm_sat16x4(tinyaot_lstm_mbqm4(vld1q_s32(in), mi, si)),
				tinyaot_lstm_sat16x4(tinyaot_lstm_mbqm4(vld1q_s32(rec), mr, sr))));

			vstrhq_s32(out + r * units + u,
				   tinyaot_lstm_act4(vmulq_n_s32(sum, 3), g == TINYAOT_LSTM_CELL));
#else
			for (int32_t j = 0; j < 4; j++) {
				out[r * units + u + j] =
					tinyaot_lstm_activate(g, tinyaot_mbqm(in[j], mi, si),
							      tinyaot_mbqm(rec[j], mr, sr));
			}
#endif
		}
		for (; u < units; u++) {
			const int32_t in = bi[u] + tinyaot_dot_s8(wi + u * n, n, xr);
			const int32_t rec = br[u] + tinyaot_dot_s8(wr + u * units, units, hr);

			out[r * units + u] = tinyaot_lstm_activate(g, tinyaot_mbqm(in, mi, si),
								   tinyaot_mbqm(rec, mr, sr));
		}
	}
}

/* One gate for every row, int16 activations: the products summed in int64, as TFLite Micro's
 * int16x8 kernel sums them.
 */
static void tinyaot_lstm_gate_s16(const struct tinyaot_lstm_s8_params *p, int32_t g,
				  const int16_t *x, const int16_t *h, const int8_t *input_weights,
				  const int8_t *recurrent_weights, const int64_t *bias,
				  int16_t *out)
{
	const int32_t n = p->input_size, units = p->units;
	const int8_t *wi = input_weights + g * units * n;
	const int8_t *wr = recurrent_weights + g * units * units;

	for (int32_t r = 0; r < p->rows; r++) {
		for (int32_t u = 0; u < units; u++) {
			const int64_t acc = tinyaot_lstm_dot_s16(wi + u * n, x + r * n, n,
								 p->input_zero_point) +
					    bias[g * units + u];
			const int64_t rec = tinyaot_lstm_dot_s16(wr + u * units, h + r * units,
								 units, p->hidden_zero_point);

			out[r * units + u] = tinyaot_lstm_activate(
				g, tinyaot_mbqm64(acc, p->input_mult[g], p->input_shift[g]),
				tinyaot_mbqm64(rec, p->recurrent_mult[g], p->recurrent_shift[g]));
		}
	}
}

static inline void tinyaot_lstm_gate_q(const struct tinyaot_lstm_s8_params *p, int wide, int32_t g,
				       const void *x, const void *h, const int8_t *input_weights,
				       const int8_t *recurrent_weights, const void *bias,
				       int16_t *out)
{
	if (wide) {
		tinyaot_lstm_gate_s16(p, g, x, h, input_weights, recurrent_weights, bias, out);
	} else {
		tinyaot_lstm_gate_s8(p, g, x, h, input_weights, recurrent_weights, bias, out);
	}
}

/* TFLite Micro's LstmStep for int8 and (wide) int16 activations: the same int16 cell and
 * gates, the hidden state clamped to the activation type.
 */
static inline void tinyaot_lstm_q(const struct tinyaot_lstm_s8_params *p, int wide,
				  const void *input, const int8_t *input_weights,
				  const int8_t *recurrent_weights, const void *bias, void *hidden,
				  int16_t *cell, void *output, int16_t *scratch)
{
	const int32_t size = p->rows * p->units;
	const size_t bytes = wide ? sizeof(int16_t) : sizeof(int8_t);
	const int32_t lo = wide ? INT16_MIN : INT8_MIN, hi = wide ? INT16_MAX : INT8_MAX;
	int16_t *forget = scratch, *gate = scratch + size, *cell_gate = scratch + 2 * size;

	for (int32_t s = 0; s < p->sequences; s++) {
		char *h = (char *)hidden + (size_t)(s * size) * bytes;
		int16_t *c = cell + s * size;

		for (int32_t t = 0; t < p->time_steps; t++) {
			const int32_t step = s * p->time_steps + t;
			const void *x = (const char *)input +
					(size_t)(step * p->rows * p->input_size) * bytes;

			tinyaot_lstm_gate_q(p, wide, TINYAOT_LSTM_FORGET, x, h, input_weights,
					    recurrent_weights, bias, forget);
			tinyaot_lstm_gate_q(p, wide, TINYAOT_LSTM_INPUT, x, h, input_weights,
					    recurrent_weights, bias, gate);
			tinyaot_lstm_gate_q(p, wide, TINYAOT_LSTM_CELL, x, h, input_weights,
					    recurrent_weights, bias, cell_gate);
#if TINYAOT_MVE_KERNELS
			tinyaot_lstm_cell4(p, forget, gate, cell_gate, c, size);
#else
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
#endif
			/* The output gate reads the hidden state before it changes. */
			tinyaot_lstm_gate_q(p, wide, TINYAOT_LSTM_OUTPUT, x, h, input_weights,
					    recurrent_weights, bias, gate);
#if TINYAOT_MVE_KERNELS
			tinyaot_lstm_hidden4(p, c, gate, h, wide, size, lo, hi);
#else
			for (int32_t i = 0; i < size; i++) {
				const int32_t th = tinyaot_tanh16(tinyaot_act16_input(
					c[i], p->cell_tanh_mult, p->cell_tanh_shift));
				const int32_t v =
					tinyaot_clamp_i32(tinyaot_mbqm(th * gate[i], p->hidden_mult,
								       p->hidden_shift) +
								  p->hidden_zero_point,
							  lo, hi);

				if (wide) {
					((int16_t *)h)[i] = (int16_t)v;
				} else {
					((int8_t *)h)[i] = (int8_t)v;
				}
			}
#endif
			memcpy((char *)output + (size_t)(step * size) * bytes, h,
			       (size_t)size * bytes);
		}
	}
}

void tinyaot_lstm_s8(const struct tinyaot_lstm_s8_params *p, const int8_t *input,
		     const int8_t *input_weights, const int8_t *recurrent_weights,
		     const int32_t *bias, int8_t *hidden, int16_t *cell, int8_t *output,
		     int16_t *scratch)
{
	tinyaot_lstm_q(p, 0, input, input_weights, recurrent_weights, bias, hidden, cell, output,
		       scratch);
}

void tinyaot_lstm_s16(const struct tinyaot_lstm_s8_params *p, const int16_t *input,
		      const int8_t *input_weights, const int8_t *recurrent_weights,
		      const int64_t *bias, int16_t *hidden, int16_t *cell, int16_t *output,
		      int16_t *scratch)
{
	tinyaot_lstm_q(p, 1, input, input_weights, recurrent_weights, bias, hidden, cell, output,
		       scratch);
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
