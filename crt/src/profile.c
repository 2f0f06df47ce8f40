/* Per-op profiling glue. Empty unless the build defines TINYAOT_PROFILE, because it needs
 * the platform's tinyaot_profile_clock() and non-profiling builds have none.
 */
#include <tinyaot/profile.h>

#ifdef TINYAOT_PROFILE

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

#endif /* TINYAOT_PROFILE */
