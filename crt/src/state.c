#include <string.h>

#include <tinyaot/state.h>

void tinyaot_state_copy(const struct tinyaot_state_copy_params *p, const void *input, void *output)
{
	memcpy(output, input, p->size);
}
