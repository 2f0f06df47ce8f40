/* exp(x) = 2^k * exp(r), |r| <= ln2/2, with a degree-7 Taylor polynomial for exp(r):
 * about 1 ulp in float, well inside the 1e-5 the float kernels promise.
 */
#include <stdint.h>
#include <string.h>
#include <tinyaot/expf.h>

float tinyaot_expf(float x)
{
	if (x > 88.7f) {
		return 3.40282347e+38f;
	}
	if (x < -103.9f) {
		return 0.0f;
	}
	const float k = (float)(int32_t)(x * 1.44269504f + (x < 0.0f ? -0.5f : 0.5f));
	/* ln2 split in two so that k * ln2 is subtracted without losing bits. */
	const float r = (x - k * 0.693145752f) - k * 1.42860677e-06f;
	float p = 1.0f / 5040.0f;

	p = p * r + 1.0f / 720.0f;
	p = p * r + 1.0f / 120.0f;
	p = p * r + 1.0f / 24.0f;
	p = p * r + 1.0f / 6.0f;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	p = p * r + 1.0f;

	/* Scale by 2^k in two steps: 2^k alone is not a normal float for k < -126. */
	int32_t ki = (int32_t)k;
	const int32_t half = ki / 2;
	uint32_t bits;
	float s;

	bits = (uint32_t)(half + 127) << 23;
	memcpy(&s, &bits, sizeof(s));
	p *= s;
	ki -= half;
	bits = (uint32_t)(ki + 127) << 23;
	memcpy(&s, &bits, sizeof(s));
	return p * s;
}
