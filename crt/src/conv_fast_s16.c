/* CONV_2D and FULLY_CONNECTED int16x8 with int32 sums (tinyaot/conv_fast_s16.h). */
#include <string.h>

#include <tinyaot/conv_fast_s16.h>
#include <tinyaot/dsp_simd.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>
#endif

/* The four sums of a block; a struct returned by value stays in registers. */
struct tinyaot_s16_sums {
	int32_t a0, a1, a2, a3;
};

/* Adds a run of n inputs against weights of positions k (four bytes each) in the default
 * layout.
 */
static inline struct tinyaot_s16_sums tinyaot_s16_run(struct tinyaot_s16_sums s, const int8_t *w,
						      const int16_t *x, int32_t n)
{
	for (const int16_t *end = x + n; x < end; x++, w += 4) {
		const int32_t v = *x;

		s.a0 += w[0] * v;
		s.a1 += w[1] * v;
		s.a2 += w[2] * v;
		s.a3 += w[3] * v;
	}
	return s;
}

/* The same in the pair layout, n even. */
static inline struct tinyaot_s16_sums
tinyaot_s16_run_pairs(struct tinyaot_s16_sums s, const int8_t *w, const int16_t *x, int32_t n)
{
	for (const int16_t *end = x + n; x < end; x += 2, w += 8) {
#if TINYAOT_ISA_DSP
		/* x[k] in the lower halfword, x[k + 1] in the upper, as in the weight pairs. */
		int32_t xv;
		const uint32_t w01 = tinyaot_dsp_word(w), w23 = tinyaot_dsp_word(w + 4);

		memcpy(&xv, x, sizeof(xv));
		s.a0 = __smlad(xv, __sxtb16((int32_t)w01), s.a0);
		s.a1 = __smlad(xv, tinyaot_dsp_odd(w01), s.a1);
		s.a2 = __smlad(xv, __sxtb16((int32_t)w23), s.a2);
		s.a3 = __smlad(xv, tinyaot_dsp_odd(w23), s.a3);
#else
		/* One product at a time: each is an MLA into its sum. */
		const int32_t v0 = x[0], v1 = x[1];

		s.a0 += w[0] * v0;
		s.a1 += w[1] * v0;
		s.a2 += w[4] * v0;
		s.a3 += w[5] * v0;
		s.a0 += w[2] * v1;
		s.a1 += w[3] * v1;
		s.a2 += w[6] * v1;
		s.a3 += w[7] * v1;
#endif
	}
	return s;
}

#if TINYAOT_MVE_KERNELS
/* A run of n inputs with Helium, on each channel's weights in a row, depth bytes apart (the
 * layout the compiler writes there): per 8 inputs one load of them, and per channel a widening
 * load of its weights and a VMLADAVA.S16 (8 products into the int32 sum); the last n % 8 under
 * a predicate, which reads nothing past them and gives zeros.
 */
static inline struct tinyaot_s16_sums tinyaot_s16_run_mve(struct tinyaot_s16_sums s,
							  const int8_t *w, int32_t depth,
							  const int16_t *x, int32_t n)
{
	for (; n > 0; n -= 8, x += 8, w += 8) {
		const mve_pred16_t live = vctp16q((uint32_t)n);
		const int16x8_t v = vldrhq_z_s16(x, live);

		s.a0 = vmladavaq_s16(s.a0, v, vldrbq_z_s16(w, live));
		s.a1 = vmladavaq_s16(s.a1, v, vldrbq_z_s16(w + depth, live));
		s.a2 = vmladavaq_s16(s.a2, v, vldrbq_z_s16(w + 2 * depth, live));
		s.a3 = vmladavaq_s16(s.a3, v, vldrbq_z_s16(w + 3 * depth, live));
	}
	return s;
}
#endif

/* TFLite Micro's requantisation of channel oc's sum, clamped. */
static inline int16_t tinyaot_s16_out(const struct tinyaot_conv_fast_s16_params *p, int32_t acc,
				      int32_t oc)
{
	const int32_t m = p->multiplier[oc], t = p->shift[oc];
	const int32_t v = p->int32_sum ? tinyaot_mbqm(acc, m, t) : tinyaot_mbqm64_pre(acc, m, t);
	return (int16_t)tinyaot_clamp_i32(v, p->act_min, p->act_max);
}

/* Copies the window of step i's pixel to patch, zeros where it is clipped (the input zero
 * point is 0); returns the output pixel.
 */
static int32_t tinyaot_s16_patch(const struct tinyaot_conv_dims *d, const int16_t *input, int32_t i,
				 int32_t pixels, int16_t *patch)
{
	const struct tinyaot_conv_window w = tinyaot_conv_clip(d, i, pixels);
	const int32_t k_row = d->k_w * d->in_c, row = d->dil_h * d->in_w * d->in_c;
	const int16_t *in = input + w.first * d->in_c;
	int32_t n;
	const int32_t runs = tinyaot_conv_row_runs(d, &w, &n);

	memset(patch, 0, (size_t)(d->k_h * k_row) * sizeof(*patch));
	for (int32_t r = 0; r < w.rows; r++) {
		for (int32_t t = 0; t < runs; t++) {
			memcpy(patch + (w.ky + r) * k_row + (w.kx + t) * d->in_c,
			       in + r * row + t * d->dil_w * d->in_c, (size_t)n * sizeof(*patch));
		}
	}
	return w.pix;
}

void tinyaot_conv_fast_s16(const struct tinyaot_conv_fast_s16_params *p, const int16_t *input,
			   int16_t *output)
{
	const struct tinyaot_conv_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t row = d->dil_h * d->in_w * d->in_c, k_row = d->k_w * d->in_c;
	const int32_t depth = d->k_h * k_row, blocks = (d->out_c + 3) / 4;
	const int32_t run_step = d->dil_w * d->in_c;
	int16_t patch[TINYAOT_CONV_FAST_S16_PATCH_MAX];

	for (int32_t i = 0; i < pixels; i++) {
		/* Per kernel row its runs of n inputs (tinyaot_conv_row_runs): the window clipped
		 * to the input, or the whole window in the patch as one run.
		 */
		struct tinyaot_conv_window w = {0, 0, 0, 0, 1, 0};
		const int16_t *in = patch;
		int32_t n = depth, runs = 1;

		if (p->patch) {
			w.pix = tinyaot_s16_patch(d, input, i, pixels, patch);
		} else {
			w = tinyaot_conv_clip(d, i, pixels);
			in = input + w.first * d->in_c;
			runs = tinyaot_conv_row_runs(d, &w, &n);
		}
		int16_t *out = output + w.pix * d->out_c;

		for (int32_t j = 0; j < blocks; j++) {
			const int32_t b = d->reverse ? blocks - 1 - j : j;
			const int32_t *bias = p->bias + 4 * b;
			struct tinyaot_s16_sums s = {bias[0], bias[1], bias[2], bias[3]};
			int16_t *o = out + 4 * b;
#if TINYAOT_MVE_KERNELS
			const int8_t *wb =
				p->weights + 4 * b * depth + w.ky * k_row + w.kx * d->in_c;

			for (int32_t r = 0; r < w.rows; r++) {
				for (int32_t t = 0; t < runs; t++) {
					s = tinyaot_s16_run_mve(s, wb + r * k_row + t * d->in_c,
								depth, in + r * row + t * run_step,
								n);
				}
			}
#else
			const int8_t *wb =
				p->weights + 4 * (b * depth + w.ky * k_row + w.kx * d->in_c);

			for (int32_t r = 0; r < w.rows; r++) {
				for (int32_t t = 0; t < runs; t++) {
					const int8_t *wr = wb + 4 * (r * k_row + t * d->in_c);
					const int16_t *x = in + r * row + t * run_step;

					s = p->pairs ? tinyaot_s16_run_pairs(s, wr, x, n)
						     : tinyaot_s16_run(s, wr, x, n);
				}
			}
#endif
			if (d->out_c - 4 * b >= 4) {
				o[0] = tinyaot_s16_out(p, s.a0, 4 * b);
				o[1] = tinyaot_s16_out(p, s.a1, 4 * b + 1);
				o[2] = tinyaot_s16_out(p, s.a2, 4 * b + 2);
				o[3] = tinyaot_s16_out(p, s.a3, 4 * b + 3);
			} else {
				const int32_t sums[3] = {s.a0, s.a1, s.a2};

				for (int32_t g = 0; g < d->out_c - 4 * b; g++) {
					o[g] = tinyaot_s16_out(p, sums[g], 4 * b + g);
				}
			}
		}
	}
}
