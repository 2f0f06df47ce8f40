/*
 * DEPTHWISE_CONV_2D int8, fast path for 3x3 windows, depth multiplier 1, strides 1 and 2.
 * For a group of up to seven output pixels of a row and a chunk of 16 channels, the kernel
 * copies the group's window to the stack (the zero point where padded: no edge cases, constant
 * strides), then computes each channel's outputs four (or two) at a time, sharing input
 * columns; the input zero point is folded into the bias, requantisation is tinyaot/requant.h.
 *
 * Element order (scripts/tinyaot/inplace.py, dwconv_fast_steps): groups of `group`
 * consecutive pixels of one output row (fewer at the row's end), in NHW order; the kernel
 * reads all of a group's input (every chunk) before it writes any of its outputs, which wait
 * in a stack buffer, then writes the group at once. With d.reverse = 1 the groups go last to
 * first.
 */
#ifndef TINYAOT_DWCONV_FAST_H_
#define TINYAOT_DWCONV_FAST_H_

#include <stddef.h>
#include <stdint.h>
#include <tinyaot/conv.h>
#include <tinyaot/requant.h>

/* Channels per staged chunk, and the stack buffer of a group's outputs (group * in_c). */
#define TINYAOT_DWCONV_FAST_CHUNK 16
#define TINYAOT_DWCONV_FAST_BUF   320

struct tinyaot_dwconv_fast_params {
	struct tinyaot_conv_dims d; /* k_h = k_w = 3, out_c = in_c % 4 == 0, strides 1 or 2 */
	int32_t group; /* pixels per group: up to 7 (stride 1) or 4, group * in_c <= the buffer */
	int32_t zero_point; /* the input's, read where the window is padded */
	int32_t act_min, act_max;
	const int8_t *weights; /* per channel, its 3x3 weights in (ky, kx) order */
	/* Per channel: bias + input offset * sum of weights, mult, high, shift (tinyaot_requant).
	 */
	const int32_t *table;
};

void tinyaot_dwconv_fast_s8(const struct tinyaot_dwconv_fast_params *p, const int8_t *input,
			    int8_t *output);

#endif /* TINYAOT_DWCONV_FAST_H_ */
