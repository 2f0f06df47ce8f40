/* State: the copies between the arena and the state buffer (READ_VARIABLE, ASSIGN_VARIABLE). */
#ifndef TINYAOT_STATE_H_
#define TINYAOT_STATE_H_

#include <stdint.h>

struct tinyaot_state_copy_params {
	uint32_t size;
};

/* size bytes of input into output (any dtype; the two never overlap). */
void tinyaot_state_copy(const struct tinyaot_state_copy_params *p, const void *input, void *output);

#endif /* TINYAOT_STATE_H_ */
