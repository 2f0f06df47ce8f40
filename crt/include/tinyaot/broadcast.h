/* Index walk shared by element-wise binary ops: up to 4-D, NumPy-style broadcasting. */
#ifndef TINYAOT_BROADCAST_H_
#define TINYAOT_BROADCAST_H_

#include <stdint.h>

struct tinyaot_broadcast {
	int32_t shape[4]; /* output dims */
	/* Element strides of each input along each output dim; 0 where it is broadcast. */
	int32_t stride1[4];
	int32_t stride2[4];
};

/* Where the element-wise kernels are in the output, and the matching input elements. */
struct tinyaot_broadcast_cursor {
	int32_t index[4];
	int32_t offset1, offset2;
};

/* A fused activation's range on a float result, as TFLite's ActivationFunctionWithMinMax. */
static inline float tinyaot_clamp_f32(float v, float lo, float hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

static inline int32_t tinyaot_broadcast_count(const struct tinyaot_broadcast *b)
{
	return b->shape[0] * b->shape[1] * b->shape[2] * b->shape[3];
}

/* Moves to the start of the next row of the innermost dim (row-major), carrying outwards. */
static inline void tinyaot_broadcast_next_row(const struct tinyaot_broadcast *b,
					      struct tinyaot_broadcast_cursor *c)
{
	for (int32_t d = 2; d >= 0; d--) {
		c->offset1 += b->stride1[d];
		c->offset2 += b->stride2[d];
		if (++c->index[d] < b->shape[d]) {
			return;
		}
		c->offset1 -= b->stride1[d] * b->shape[d];
		c->offset2 -= b->stride2[d] * b->shape[d];
		c->index[d] = 0;
	}
}

/*
 * output[i] = expr for every output element, with c.offset1 and c.offset2 the elements of the
 * two inputs that output[i] reads. A row of the innermost dim is a plain loop with its two
 * strides (1, or 0 where an input is broadcast) in registers; the outer dims move once a row.
 */
#define TINYAOT_BROADCAST_EACH(bc, output, expr)                                                   \
	do {                                                                                       \
		const struct tinyaot_broadcast *b_ = (bc);                                         \
		const int32_t n_ = tinyaot_broadcast_count(b_);                                    \
		const int32_t w_ = b_->shape[3], s1_ = b_->stride1[3], s2_ = b_->stride2[3];       \
		struct tinyaot_broadcast_cursor row_ = {{0, 0, 0, 0}, 0, 0};                       \
		for (int32_t i_ = 0; i_ < n_; tinyaot_broadcast_next_row(b_, &row_)) {             \
			struct {                                                                   \
				int32_t offset1, offset2;                                          \
			} c = {row_.offset1, row_.offset2};                                        \
			for (const int32_t end_ = i_ + w_; i_ < end_; i_++) {                      \
				(output)[i_] = (expr);                                             \
				c.offset1 += s1_;                                                  \
				c.offset2 += s2_;                                                  \
			}                                                                          \
		}                                                                                  \
	} while (0)

/*
 * body once per row of the innermost dim, with row.offset1 and row.offset2 the inputs' first
 * elements of the row, i_ the row's first output element and w_, s1_, s2_ its length and the
 * inputs' strides along it (1, or 0 where an input is broadcast): for kernels that work a row
 * at a time (Helium's vector loops).
 */
#define TINYAOT_BROADCAST_ROWS(bc, body)                                                           \
	do {                                                                                       \
		const struct tinyaot_broadcast *b_ = (bc);                                         \
		const int32_t n_ = tinyaot_broadcast_count(b_);                                    \
		const int32_t w_ = b_->shape[3], s1_ = b_->stride1[3], s2_ = b_->stride2[3];       \
		struct tinyaot_broadcast_cursor row = {{0, 0, 0, 0}, 0, 0};                        \
		for (int32_t i_ = 0; i_ < n_; i_ += w_, tinyaot_broadcast_next_row(b_, &row)) {    \
			body                                                                       \
		}                                                                                  \
	} while (0)

#endif /* TINYAOT_BROADCAST_H_ */
