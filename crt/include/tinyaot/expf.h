/* exp() for float kernels, so that the runtime needs no libm (Zephyr's minimal libc has none). */
#ifndef TINYAOT_EXPF_H_
#define TINYAOT_EXPF_H_

float tinyaot_expf(float x);

#endif /* TINYAOT_EXPF_H_ */
