/* The signal library's filter bank stages (tinyaot/signal.h): the mel filter bank on the
 * energies, its integer square root, spectral subtraction (whose noise estimate is state),
 * PCAN gain control and the integer log, in TFLM's types so the same bits wrap.
 */
#include <string.h>

#include "tinyaot/signal.h"

void tinyaot_signal_filter_bank_u32(const struct tinyaot_signal_filter_bank_params *p,
				    const uint32_t *input, const int16_t *weights,
				    const int16_t *unweights, const int16_t *frequency_starts,
				    const int16_t *weight_starts, const int16_t *widths,
				    uint64_t *output)
{
	/* Channel i's energy carries channel i - 1's unweighted part; TFLM's channel 0 is
	 * scratch that only seeds channel 1, so it is not stored. A weight is an int16 that
	 * C++ converts to uint64, sign and all.
	 */
	uint64_t weighted = 0;
	uint64_t unweighted = 0;

	for (int32_t i = 0; i <= p->num_channels; i++) {
		const int32_t freq = frequency_starts[i];
		const int32_t w = weight_starts[i];

		for (int32_t j = 0; j < widths[i]; j++) {
			weighted += (uint64_t)(int64_t)weights[w + j] * input[freq + j];
			unweighted += (uint64_t)(int64_t)unweights[w + j] * input[freq + j];
		}
		if (i > 0) {
			/* The arena aligns tensors to 4 bytes: a uint64 may sit between words. */
			memcpy(&output[i - 1], &weighted, sizeof(weighted));
		}
		weighted = unweighted;
		unweighted = 0;
	}
}

static uint32_t tinyaot_signal_msb64(uint64_t x)
{
	const uint32_t upper = (uint32_t)(x >> 32);

	return upper ? 32u + tinyaot_signal_msb32(upper) : tinyaot_signal_msb32((uint32_t)x);
}

/* Sqrt32 (width 32) and Sqrt64 (width 64) digit by digit, with their final rounding up; the
 * 32-bit one never carries past 32 bits, so one loop on uint64 serves both.
 */
static uint32_t tinyaot_signal_sqrt(uint64_t num, int32_t width)
{
	if (num == 0) {
		return 0;
	}
	uint64_t res = 0;
	const int32_t top = (width - (int32_t)tinyaot_signal_msb64(num)) | 1;
	uint64_t bit = (uint64_t)1 << (width - 1 - top);

	for (int32_t n = (width - 1 - top) / 2 + 1; n > 0; n--) {
		if (num >= res + bit) {
			num -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	if (num > res && res != (width == 32 ? 0xFFFFu : 0xFFFFFFFFu)) {
		++res;
	}
	return (uint32_t)res;
}

static uint32_t tinyaot_signal_sqrt64(uint64_t num)
{
	/* TFLM's shortcut, off by one near 2^32, kept for its results. */
	return tinyaot_signal_sqrt(num, (num >> 32) == 0 ? 32 : 64);
}

void tinyaot_signal_sqrt_u64(const struct tinyaot_signal_square_root_params *p,
			     const uint64_t *input, const int32_t *scale_bits, uint32_t *output)
{
	/* The shift count as x86 and TFLM's own hosts take it (FFT auto scale gives 0..15). */
	const uint32_t shift = (uint32_t)*scale_bits & 31u;

	for (int32_t i = 0; i < p->num_channels; i++) {
		uint64_t energy;

		memcpy(&energy, &input[i], sizeof(energy)); /* 4-byte aligned, as above */
		output[i] = tinyaot_signal_sqrt64(energy) >> shift;
	}
}

void tinyaot_signal_subtract_u32(const struct tinyaot_signal_spectral_subtraction_params *p,
				 const uint32_t *input, uint32_t *noise_estimate, uint32_t *output,
				 uint32_t *noise_output)
{
	for (int32_t i = 0; i < p->num_channels; i++) {
		/* Odd channels take the alternate coefficients. */
		const uint32_t smoothing = (i & 1) ? p->alternate_smoothing : p->smoothing;
		const uint32_t keep =
			(i & 1) ? p->alternate_one_minus_smoothing : p->one_minus_smoothing;
		const uint32_t signal = input[i] << p->smoothing_bits;

		noise_estimate[i] = (uint32_t)(((uint64_t)signal * smoothing +
						(uint64_t)noise_estimate[i] * keep) >>
					       p->spectral_subtraction_bits);
		uint32_t estimate = noise_estimate[i];

		if (estimate > signal) {
			estimate = signal;
			if (p->clamping) {
				noise_estimate[i] = estimate;
			}
		}
		const uint32_t floor = (uint32_t)(((uint64_t)input[i] * p->min_signal_remaining) >>
						  p->spectral_subtraction_bits);
		const uint32_t subtracted = (signal - estimate) >> p->smoothing_bits;

		output[i] = subtracted > floor ? subtracted : floor;
	}
	for (int32_t i = 0; i < p->num_channels; i++) {
		noise_output[i] = noise_estimate[i];
	}
}

/* PCAN's gain: a quadratic per octave of the noise estimate (WideDynamicFunction), in int32
 * arithmetic that wraps as TFLM's does, returned as the int16 it returns.
 */
static int16_t tinyaot_signal_pcan_gain(uint32_t x, const int16_t *lut)
{
	if (x <= 2) {
		return lut[x];
	}
	const int32_t interval = (int32_t)tinyaot_signal_msb32(x);
	const int16_t *l = lut + 4 * interval - 6;
	const int32_t frac =
		(int16_t)((interval < 11 ? x << (11 - interval) : x >> (interval - 11)) & 0x3FFu);
	int32_t result = ((int32_t)l[2] * frac) >> 5;

	result = (int32_t)((uint32_t)result + ((uint32_t)(int32_t)l[1] << 5));
	result = (int32_t)((uint32_t)result * (uint32_t)frac);
	result = (int32_t)((uint32_t)result + (1u << 14)) >> 15;
	result += l[0];
	return (int16_t)result;
}

void tinyaot_signal_pcan_u32(const struct tinyaot_signal_pcan_params *p, const uint32_t *input,
			     const uint32_t *noise_estimate, const int16_t *gain_lut,
			     uint32_t *output)
{
	for (int32_t i = 0; i < p->num_channels; i++) {
		/* TFLM widens the int16 gain to uint32, sign and all. */
		const uint32_t gain =
			(uint32_t)(int32_t)tinyaot_signal_pcan_gain(noise_estimate[i], gain_lut);
		const uint32_t snr = (uint32_t)(((uint64_t)input[i] * gain) >> p->snr_shift);

		/* snr has 12 fractional bits, the output 6: x^2 / 4 below 2, x - 1 above. */
		output[i] = snr < (2u << 12) ? (snr * snr) >> 20 : (snr >> 6) - (1u << 6);
	}
}

/* Log32's log2, in Q16: the integer part, and the fraction corrected from the table. */
static uint32_t tinyaot_signal_log2(const uint16_t *lut, uint32_t x)
{
	const uint32_t integer = tinyaot_signal_msb32(x) - 1;
	int32_t frac = (int32_t)(x - (1u << integer));

	if (integer < 16) {
		frac = (int32_t)((uint32_t)frac << (16 - integer));
	} else {
		frac >>= integer - 16;
	}
	const uint32_t seg = (uint32_t)frac >> 9;
	const int32_t c0 = lut[seg];
	const int32_t c1 = lut[seg + 1];
	const int32_t rel = ((c1 - c0) * (frac - (int32_t)(seg << 9))) >> 16;

	return (integer << 16) + (uint32_t)(frac + c0 + rel);
}

void tinyaot_signal_filter_bank_log_u32(const struct tinyaot_signal_filter_bank_log_params *p,
					const uint32_t *input, int16_t *output)
{
	for (int32_t i = 0; i < p->num_channels; i++) {
		const uint32_t scaled = input[i] << p->correction_bits;

		if (scaled > 1) {
			/* ln(2) = 45426 / 65536, then the output scale, both rounded. */
			const uint32_t log2 = tinyaot_signal_log2(p->lut, scaled);
			const uint32_t loge = (uint32_t)(((uint64_t)45426 * log2 + 32768u) >> 16);
			const uint32_t value = (p->output_scale * loge + 32768u) >> 16;

			output[i] = (int16_t)(value < 32767u ? value : 32767u);
		} else {
			output[i] = 0;
		}
	}
}
