/*
 * CONV_2D and FULLY_CONNECTED int16x8, fast path. TFLite Micro sums the products of int16
 * inputs and int8 weights in int64 (SMLAL, 7 cycles on a Cortex-M3, two accumulator registers
 * each); where no partial sum of a channel, its bias included, can leave int32 whatever the
 * inputs (the compiler checks it with the weights: the bias plus 32768 times the sum of their
 * magnitudes), the same sum is taken in int32, starting from the bias: by MLA, or on cores with
 * the DSP extension by SMLAD, two inputs (one word) and two weights at once, with Helium by
 * VMLADAVA.S16, eight inputs and weights at once. The requantisation is TFLite Micro's: with
 * int32_sum its int32 MultiplyByQuantizedMultiplier, else its int64 one on that int32 sum,
 * (x * m + 2^(t - 1)) >> t with the multiplier m rounded to 16 bits and the total shift t
 * precomputed, 1 to 31 (the compiler checks it): one SMLAL, and the shift of the low word with
 * the high word's bits shifted in.
 *
 * Output channels go four at a time, a block, each input read once for the four; the compiler
 * writes the weights per block in the order the loop reads them. Elements are produced pixel by
 * pixel, blocks ascending (or exactly the reverse, d.reverse), each block's channels written
 * after all its reads: no write earlier and no read later than tinyaot_conv_s16's, so the
 * planner's overlap gaps for that kernel hold.
 */
#ifndef TINYAOT_CONV_FAST_S16_H_
#define TINYAOT_CONV_FAST_S16_H_

#include <stdint.h>
#include <tinyaot/conv.h>

/* The largest window (k_h * k_w * in_c inputs) the compiler copies to a stack patch. */
#define TINYAOT_CONV_FAST_S16_PATCH_MAX 128

struct tinyaot_conv_fast_s16_params {
	struct tinyaot_conv_dims d;
	int32_t act_min, act_max;
	int32_t int32_sum; /* as in struct tinyaot_conv_s16_params */
	/*
	 * Per block of four output channels (out_c rounded up; channels past out_c have zero
	 * weights and are not written), the k_h * k_w * in_c window positions in (ky, kx, ic)
	 * order, four bytes each: with pairs = 0, position k's weights of channels 0 to 3; with
	 * pairs = 1 (every run starts on an even position and is of even length: in_c even, or
	 * the whole window one run of the patch), per two positions k, k + 1 the words (c0[k],
	 * c1[k], c0[k + 1], c1[k + 1]) and (c2[k], c3[k], c2[k + 1], c3[k + 1]), which SXTB16
	 * splits into the channels' halfword pairs for SMLAD. Where TINYAOT_MVE_KERNELS, per block
	 * each channel's window positions in a row instead, for VMLADAVA.S16.
	 */
	const int8_t *weights;
	int32_t pairs;
	/* 1: each window is copied to a patch on the stack (zeros where clipped) and read as one
	 * run, where its kernel rows would be short runs of their own; the compiler sets it for
	 * windows of up to TINYAOT_CONV_FAST_S16_PATCH_MAX inputs over more than one tap.
	 */
	int32_t patch;
	/* Per output channel: the bias (0 without one; out_c rounded up to a block), and with
	 * int32_sum TFLite Micro's multiplier and shift, else m and t (above).
	 */
	const int32_t *bias;
	const int32_t *multiplier;
	const int32_t *shift;
};

void tinyaot_conv_fast_s16(const struct tinyaot_conv_fast_s16_params *p, const int16_t *input,
			   int16_t *output);

#endif /* TINYAOT_CONV_FAST_S16_H_ */
