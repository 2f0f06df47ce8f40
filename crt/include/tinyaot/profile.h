/*
 * Per-op profiling, compiled into generated code when TINYAOT_PROFILE is defined.
 *
 * The platform supplies the clock (the Zephyr glue: k_cycle_get_32()); the
 * application may replace the weak report hook to print or collect the figures.
 */
#ifndef TINYAOT_PROFILE_H_
#define TINYAOT_PROFILE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A free-running cycle counter. No default: each platform defines it. */
uint32_t tinyaot_profile_clock(void);

/* Called after each op with the cycles it took. The default does nothing. */
void tinyaot_profile_op(const char *model, int32_t index, const char *op, uint32_t cycles);

/* Reports the op that started at `start` and returns the start of the next one, so that
 * the time spent in the hook is not charged to any op.
 */
uint32_t tinyaot_profile_step(const char *model, int32_t index, const char *op, uint32_t start);

#ifdef __cplusplus
}
#endif

#endif /* TINYAOT_PROFILE_H_ */
