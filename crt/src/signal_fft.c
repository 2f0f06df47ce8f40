/* The signal library's stages on int16 samples: window, FFT auto scale, the real FFT, the
 * energy of each bin, and delay (tinyaot/signal.h). Every FFT intermediate is stored back to
 * int16 where kiss_fft stores it (a kiss_fft_scalar), which is where its wrap-arounds happen.
 */
#include <stddef.h>

#include "tinyaot/signal.h"

void tinyaot_signal_window_s16(const struct tinyaot_signal_window_params *p, const int16_t *input,
			       const int16_t *window, int16_t *output)
{
	for (int32_t base = 0; base < p->size; base += p->window_size) {
		for (int32_t i = 0; i < p->window_size; i++) {
			const int32_t raw = ((int32_t)input[base + i] * window[i]) >> p->shift;

			output[base + i] = (int16_t)(raw < INT16_MIN   ? INT16_MIN
						     : raw > INT16_MAX ? INT16_MAX
								       : raw);
		}
	}
}

void tinyaot_signal_fft_auto_scale_s16(const struct tinyaot_signal_fft_auto_scale_params *p,
				       const int16_t *input, int16_t *output, int32_t *scale_bits)
{
	/* MaxAbs16 keeps its running maximum in an int16, so -(-32768) wraps to -32768 there and
	 * a later value replaces it: kept, for the same scale on such input.
	 */
	int16_t max = 0;

	for (int32_t i = 0; i < p->size; i++) {
		const int16_t v = input[i];

		if (v > max) {
			max = v;
		} else if (-v > max) {
			max = (int16_t)-v;
		}
	}
	int32_t bits = 16 - (int32_t)tinyaot_signal_msb32((uint32_t)(int32_t)max) - 1;

	if (bits < 0) {
		bits = 0;
	}
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = (int16_t)(input[i] * (1 << bits));
	}
	*scale_bits = bits;
}

/* kiss_fft's fixed-point helpers: products rounded back from Q15 (sround), and C_FIXDIV's
 * division by the radix as a multiplication by 32767 / radix.
 */
static int16_t tinyaot_kf_round(int32_t x)
{
	return (int16_t)((x + (1 << 14)) >> 15);
}

static int16_t tinyaot_kf_div(int16_t x, int32_t radix)
{
	return tinyaot_kf_round((int32_t)x * (32767 / radix));
}

static void tinyaot_kf_fixdiv(int16_t *c, int32_t radix)
{
	c[0] = tinyaot_kf_div(c[0], radix);
	c[1] = tinyaot_kf_div(c[1], radix);
}

/* m = a * b, complex, on (re, im) pairs. */
static void tinyaot_kf_mul(int16_t *m, const int16_t *a, const int16_t *b)
{
	const int16_t re = tinyaot_kf_round((int32_t)a[0] * b[0] - (int32_t)a[1] * b[1]);
	const int16_t im = tinyaot_kf_round((int32_t)a[0] * b[1] + (int32_t)a[1] * b[0]);

	m[0] = re;
	m[1] = im;
}

static void tinyaot_kf_bfly2(const int16_t *tw, int16_t *f, int32_t fstride, int32_t m)
{
	for (int32_t k = 0; k < m; k++) {
		int16_t *a = &f[2 * k];
		int16_t *b = &f[2 * (k + m)];
		int16_t t[2];

		tinyaot_kf_fixdiv(a, 2);
		tinyaot_kf_fixdiv(b, 2);
		tinyaot_kf_mul(t, b, &tw[2 * k * fstride]);
		b[0] = (int16_t)(a[0] - t[0]);
		b[1] = (int16_t)(a[1] - t[1]);
		a[0] = (int16_t)(a[0] + t[0]);
		a[1] = (int16_t)(a[1] + t[1]);
	}
}

static void tinyaot_kf_bfly4(const int16_t *tw, int16_t *f, int32_t fstride, int32_t m)
{
	for (int32_t k = 0; k < m; k++) {
		int16_t *f0 = &f[2 * k];
		int16_t *f1 = &f[2 * (k + m)];
		int16_t *f2 = &f[2 * (k + 2 * m)];
		int16_t *f3 = &f[2 * (k + 3 * m)];
		int16_t s0[2], s1[2], s2[2], s3[2], s4[2], s5[2];

		tinyaot_kf_fixdiv(f0, 4);
		tinyaot_kf_fixdiv(f1, 4);
		tinyaot_kf_fixdiv(f2, 4);
		tinyaot_kf_fixdiv(f3, 4);
		tinyaot_kf_mul(s0, f1, &tw[2 * k * fstride]);
		tinyaot_kf_mul(s1, f2, &tw[4 * k * fstride]);
		tinyaot_kf_mul(s2, f3, &tw[6 * k * fstride]);
		s5[0] = (int16_t)(f0[0] - s1[0]);
		s5[1] = (int16_t)(f0[1] - s1[1]);
		f0[0] = (int16_t)(f0[0] + s1[0]);
		f0[1] = (int16_t)(f0[1] + s1[1]);
		s3[0] = (int16_t)(s0[0] + s2[0]);
		s3[1] = (int16_t)(s0[1] + s2[1]);
		s4[0] = (int16_t)(s0[0] - s2[0]);
		s4[1] = (int16_t)(s0[1] - s2[1]);
		f2[0] = (int16_t)(f0[0] - s3[0]);
		f2[1] = (int16_t)(f0[1] - s3[1]);
		f0[0] = (int16_t)(f0[0] + s3[0]);
		f0[1] = (int16_t)(f0[1] + s3[1]);
		f1[0] = (int16_t)(s5[0] + s4[1]);
		f1[1] = (int16_t)(s5[1] - s4[0]);
		f3[0] = (int16_t)(s5[0] - s4[1]);
		f3[1] = (int16_t)(s5[1] + s4[0]);
	}
}

/* kf_work: the DFT of radix * m points as radix DFTs of m points over the input decimated by
 * radix, then one butterfly stage; the recursion is as deep as the FFT has radices. The input
 * is read from `pos` of the row in steps; past its `length` samples it reads as zero, the
 * padding to fft_length, so the row needs no padded copy.
 */
static void tinyaot_kf_work(const struct tinyaot_signal_rfft_s16_params *p, int16_t *out,
			    const int16_t *row, int32_t length, int32_t pos, int32_t fstride,
			    const int32_t *factors)
{
	const int32_t radix = factors[0];
	const int32_t m = factors[1];

	for (int32_t k = 0; k < radix; k++) {
		const int32_t at = pos + 2 * k * fstride;

		if (m == 1) {
			out[2 * k] = at < length ? row[at] : 0;
			out[2 * k + 1] = at + 1 < length ? row[at + 1] : 0;
		} else {
			tinyaot_kf_work(p, &out[2 * k * m], row, length, at, fstride * radix,
					factors + 2);
		}
	}
	if (radix == 4) {
		tinyaot_kf_bfly4(p->twiddles, out, fstride, m);
	} else {
		tinyaot_kf_bfly2(p->twiddles, out, fstride, m);
	}
}

/* The complex FFT's n values fill the first 2n of the output's 2n + 2, where the split into
 * the real spectrum then runs in place: step k reads entries k and n - k and writes only those.
 */
static void tinyaot_kf_fftr(const struct tinyaot_signal_rfft_s16_params *p, const int16_t *row,
			    int16_t *freq)
{
	const int32_t n = p->fft_length / 2;
	int16_t dc[2];

	tinyaot_kf_work(p, freq, row, p->input_length, 0, 1, p->factors);
	dc[0] = freq[0];
	dc[1] = freq[1];
	tinyaot_kf_fixdiv(dc, 2);
	freq[0] = (int16_t)(dc[0] + dc[1]);
	freq[2 * n] = (int16_t)(dc[0] - dc[1]);
	freq[1] = 0;
	freq[2 * n + 1] = 0;
	for (int32_t k = 1; k <= n / 2; k++) {
		int16_t fpk[2] = {freq[2 * k], freq[2 * k + 1]};
		int16_t fpnk[2] = {freq[2 * (n - k)], (int16_t)-freq[2 * (n - k) + 1]};
		int16_t f1k[2], f2k[2], tw[2];

		tinyaot_kf_fixdiv(fpk, 2);
		tinyaot_kf_fixdiv(fpnk, 2);
		f1k[0] = (int16_t)(fpk[0] + fpnk[0]);
		f1k[1] = (int16_t)(fpk[1] + fpnk[1]);
		f2k[0] = (int16_t)(fpk[0] - fpnk[0]);
		f2k[1] = (int16_t)(fpk[1] - fpnk[1]);
		tinyaot_kf_mul(tw, f2k, &p->super_twiddles[2 * (k - 1)]);
		freq[2 * k] = (int16_t)((f1k[0] + tw[0]) >> 1);
		freq[2 * k + 1] = (int16_t)((f1k[1] + tw[1]) >> 1);
		freq[2 * (n - k)] = (int16_t)((f1k[0] - tw[0]) >> 1);
		freq[2 * (n - k) + 1] = (int16_t)((tw[1] - f1k[1]) >> 1);
	}
}

void tinyaot_signal_rfft_s16(const struct tinyaot_signal_rfft_s16_params *p, const int16_t *input,
			     int16_t *output)
{
	for (int32_t b = 0; b < p->batches; b++) {
		tinyaot_kf_fftr(p, &input[b * p->input_length], &output[2 * b * p->output_stride]);
	}
}

void tinyaot_signal_energy_s16(const struct tinyaot_signal_energy_params *p, const int16_t *input,
			       uint32_t *output)
{
	/* TFLM leaves the bins outside [start, end) as they were; zero is what a fresh arena
	 * would hold, and keeps the output the same from run to run.
	 */
	for (int32_t i = 0; i < p->size; i++) {
		const int32_t re = input[2 * i];
		const int32_t im = input[2 * i + 1];

		/* Each square fits an int32; their sum wraps at -32768, -32768 as TFLM's does. */
		output[i] = i >= p->start && i < p->end ? (uint32_t)(re * re) + (uint32_t)(im * im)
							: 0u;
	}
}

void tinyaot_signal_delay_s16(const struct tinyaot_signal_delay_params *p, const int16_t *input,
			      int16_t *history, int16_t *output)
{
	/* Each row's stream is its history, then the new frame: the frame's worth at the front
	 * comes out, the next delay samples are the new history. Ascending j reads history[k]
	 * (k > j) before it is overwritten.
	 */
	for (int32_t r = 0; r < p->rows; r++) {
		const int16_t *in = &input[r * p->frame_size];
		int16_t *out = &output[r * p->frame_size];
		int16_t *h = p->delay ? &history[r * p->delay] : NULL;

		for (int32_t i = 0; i < p->frame_size; i++) {
			out[i] = i < p->delay ? h[i] : in[i - p->delay];
		}
		for (int32_t j = 0; j < p->delay; j++) {
			const int32_t k = p->frame_size + j;

			h[j] = k < p->delay ? h[k] : in[k - p->delay];
		}
	}
}
