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

static inline int32_t tinyaot_broadcast_count(const struct tinyaot_broadcast *b)
{
	return b->shape[0] * b->shape[1] * b->shape[2] * b->shape[3];
}

/* Moves to the next output element (row-major), carrying into outer dims. */
static inline void tinyaot_broadcast_next(const struct tinyaot_broadcast *b,
					  struct tinyaot_broadcast_cursor *c)
{
	for (int32_t d = 3; d >= 0; d--) {
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

#endif /* TINYAOT_BROADCAST_H_ */
