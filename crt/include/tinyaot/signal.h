/* TFLite Micro's signal library (the audio front end that micro_speech's audio_preprocessor
 * models carry): window, FFT auto scale, int16 real FFT, energy, filter bank, its square
 * root, spectral subtraction, PCAN and log, each with the integer steps, types and wrap-arounds
 * of signal/src in the TFLite Micro tree, so results are bit-exact with its interpreter.
 */
#ifndef TINYAOT_SIGNAL_H_
#define TINYAOT_SIGNAL_H_

#include <stdint.h>

#include "tinyaot/clz.h"

/* The signal library's MostSignificantBit32 as TFLite Micro builds it with GCC or clang:
 * 32 for 0 (its portable fallback would give 0; the installed interpreter takes the builtin).
 */
static inline uint32_t tinyaot_signal_msb32(uint32_t x)
{
	return x ? (uint32_t)(32 - tinyaot_clz32(x)) : 32u;
}

struct tinyaot_signal_window_params {
	int32_t size;        /* elements of the input */
	int32_t window_size; /* elements of the window, applied to each run of that many */
	int32_t shift;
};

void tinyaot_signal_window_s16(const struct tinyaot_signal_window_params *p, const int16_t *input,
			       const int16_t *window, int16_t *output);

struct tinyaot_signal_fft_auto_scale_params {
	int32_t size;
};

void tinyaot_signal_fft_auto_scale_s16(const struct tinyaot_signal_fft_auto_scale_params *p,
				       const int16_t *input, int16_t *output, int32_t *scale_bits);

/* kiss_fft's real FFT in 16-bit fixed point (FIXED_POINT 16, as TFLM configures it): a complex
 * FFT of fft_length / 2 points over the even and odd samples, then the split into the real
 * spectrum. Twiddles and radices are computed by the compiler as kiss_fft_alloc computes them.
 */
struct tinyaot_signal_rfft_s16_params {
	int32_t batches;
	int32_t input_length;    /* samples of each batch, zero-padded to fft_length */
	int32_t fft_length;      /* even; the complex FFT has fft_length / 2 points */
	int32_t output_stride;   /* complex values between batches in the output */
	const int32_t *factors;  /* kiss_fft's (radix, remaining length) pairs, radices 2 and 4 */
	const int16_t *twiddles; /* fft_length / 2 complex (re, im) */
	const int16_t *super_twiddles; /* fft_length / 4 complex */
};

void tinyaot_signal_rfft_s16(const struct tinyaot_signal_rfft_s16_params *p, const int16_t *input,
			     int16_t *output);

struct tinyaot_signal_energy_params {
	int32_t size; /* complex values in, uint32 out */
	int32_t start;
	int32_t end;
};

void tinyaot_signal_energy_s16(const struct tinyaot_signal_energy_params *p, const int16_t *input,
			       uint32_t *output);

struct tinyaot_signal_filter_bank_params {
	int32_t num_channels;
};

void tinyaot_signal_filter_bank_u32(const struct tinyaot_signal_filter_bank_params *p,
				    const uint32_t *input, const int16_t *weights,
				    const int16_t *unweights, const int16_t *frequency_starts,
				    const int16_t *weight_starts, const int16_t *widths,
				    uint64_t *output);

struct tinyaot_signal_square_root_params {
	int32_t num_channels;
};

void tinyaot_signal_sqrt_u64(const struct tinyaot_signal_square_root_params *p,
			     const uint64_t *input, const int32_t *scale_bits, uint32_t *output);

struct tinyaot_signal_spectral_subtraction_params {
	int32_t num_channels;
	uint32_t smoothing;
	uint32_t one_minus_smoothing;
	uint32_t alternate_smoothing;
	uint32_t alternate_one_minus_smoothing;
	uint32_t min_signal_remaining;
	uint32_t smoothing_bits;
	uint32_t spectral_subtraction_bits;
	int32_t clamping;
};

/* noise_estimate: the op's state (num_channels uint32, zero after reset), kept in the state
 * buffer; noise_output receives a copy of it after the update, as TFLM's second output.
 */
void tinyaot_signal_subtract_u32(const struct tinyaot_signal_spectral_subtraction_params *p,
				 const uint32_t *input, uint32_t *noise_estimate, uint32_t *output,
				 uint32_t *noise_output);

struct tinyaot_signal_pcan_params {
	int32_t num_channels;
	int32_t snr_shift;
};

/* gain_lut: 125 int16, three per interval of the noise estimate's magnitude. */
void tinyaot_signal_pcan_u32(const struct tinyaot_signal_pcan_params *p, const uint32_t *input,
			     const uint32_t *noise_estimate, const int16_t *gain_lut,
			     uint32_t *output);

struct tinyaot_signal_filter_bank_log_params {
	int32_t num_channels;
	uint32_t output_scale;
	uint32_t correction_bits;
	/* log2(1 + i / 128) - i / 128 in Q16 for i = 0..128, and a 0 after it */
	const uint16_t *lut;
};

void tinyaot_signal_filter_bank_log_u32(const struct tinyaot_signal_filter_bank_log_params *p,
					const uint32_t *input, int16_t *output);

struct tinyaot_signal_delay_params {
	int32_t rows;
	int32_t frame_size;
	int32_t delay;
};

/* history: rows x delay samples still owed to the output, oldest first (state; NULL when
 * delay is 0).
 */
void tinyaot_signal_delay_s16(const struct tinyaot_signal_delay_params *p, const int16_t *input,
			      int16_t *history, int16_t *output);

#endif /* TINYAOT_SIGNAL_H_ */
