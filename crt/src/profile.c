/* Per-op profiling glue; linked in only when generated code is built with TINYAOT_PROFILE. */
#include <tinyaot/profile.h>

__attribute__((weak)) void tinyaot_profile_op(const char *model, int32_t index, const char *op,
					      uint32_t cycles)
{
	(void)model;
	(void)index;
	(void)op;
	(void)cycles;
}

uint32_t tinyaot_profile_step(const char *model, int32_t index, const char *op, uint32_t start)
{
	tinyaot_profile_op(model, index, op, tinyaot_profile_clock() - start);
	return tinyaot_profile_clock();
}
