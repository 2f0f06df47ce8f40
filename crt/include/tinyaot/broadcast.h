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

#endif /* TINYAOT_BROADCAST_H_ */
