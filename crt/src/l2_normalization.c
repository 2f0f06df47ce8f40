/* Reference L2_NORMALIZATION. int8 is TFLM's integer kernel: the int32 sum of squares of
 * the offset inputs, its inverse square root as gemmlowp computes it
 * (GetInvSqrtQuantizedMultiplierExp: five Newton-Raphson steps in Q3.28), then each input
 * requantised to Q0.7. float32 divides by max(sqrt(sum of squares), 1e-6) like TFLM, with a
 * correctly rounded square root (as std::sqrt) computed on the integers, without libm.
 */
#include <string.h>

#include <tinyaot/clz.h>
#include <tinyaot/gemmlowp.h>
#include <tinyaot/l2_normalization.h>

/* GetInvSqrtQuantizedMultiplierExp(x, -1): 1/sqrt(x) as a multiplier and a (left) shift. */
static void inv_sqrt(int32_t x, int32_t *multiplier, int32_t *shift)
{
	if (x <= 1) {
		*multiplier = INT32_MAX;
		*shift = 0;
		return;
	}
	int32_t s = 11;

	while (x >= (1 << 29)) {
		x /= 4;
		s++;
	}
	const int32_t pairs = (tinyaot_clz32((uint32_t)x) - 1) / 2 - 1;

	s -= pairs;
	x <<= 2 * pairs;

	const int32_t half_input = tinyaot_rdbpot(x >> 1, 1);
	const int32_t half_three = (1 << 28) + (1 << 27);
	int32_t y = 1 << 28; /* 1 in Q3.28 */

	for (int32_t i = 0; i < 5; i++) {
		const int32_t y3 = tinyaot_rescale(tinyaot_srdhm(tinyaot_srdhm(y, y), y), 9, 3);
		const uint32_t diff = (uint32_t)tinyaot_srdhm(half_three, y) -
				      (uint32_t)tinyaot_srdhm(half_input, y3);

		y = tinyaot_rescale((int32_t)diff, 6, 3);
	}
	y = tinyaot_srdhm(y, 1518500250); /* sqrt(2) / 2 in Q0.31 */
	if (s < 0) {
		y = (int32_t)((uint32_t)y << -s);
		s = 0;
	}
	*multiplier = y;
	*shift = -s;
}

void tinyaot_l2_normalization_s8(const struct tinyaot_l2_normalization_s8_params *p,
				 const int8_t *input, int8_t *output)
{
	for (int32_t r = 0; r < p->rows; r++) {
		const int8_t *x = input + r * p->depth;
		int8_t *y = output + r * p->depth;
		int32_t acc = 0, multiplier, shift;

		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t v = x[c] - p->input_zero_point;

			acc += v * v;
		}
		inv_sqrt(acc, &multiplier, &shift);
		for (int32_t c = 0; c < p->depth; c++) {
			const int32_t v =
				tinyaot_mbqm(x[c] - p->input_zero_point, multiplier, shift + 7);

			y[c] = (int8_t)tinyaot_clamp_i32(v, INT8_MIN, INT8_MAX);
		}
	}
}

/* floor(sqrt(n)), bit by bit. */
static uint64_t isqrt64(uint64_t n)
{
	uint64_t root = 0, bit = (uint64_t)1 << 62;

	while (bit > n) {
		bit >>= 2;
	}
	while (bit != 0) {
		if (n >= root + bit) {
			n -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	return root;
}

/* sqrt(x) rounded to nearest for x >= 0 (a sum of squares): x = m * 2^e with m an integer,
 * m shifted to 49 or 50 bits with an even exponent left, its 25-bit integer root rounded
 * on its last bit (never an exact tie: the root of a number with many trailing zeros). */
static float sqrt_f32(float x)
{
	uint32_t bits;

	memcpy(&bits, &x, sizeof(bits));
	const int32_t biased = (int32_t)(bits >> 23);

	if (x == 0.0f || biased >= 255) {
		return x; /* zero, infinity, NaN */
	}
	uint64_t m = bits & 0x7FFFFFu;
	int32_t e = -149;

	if (biased > 0) {
		m |= 0x800000u;
		e = biased - 150;
	}
	/* m's top bit to bit 48 */
	int32_t s = 48 - (31 - tinyaot_clz32((uint32_t)m));

	if ((e - s) % 2 != 0) {
		s++;
	}
	uint64_t root = isqrt64(m << s);
	int32_t exponent = (e - s) / 2 + 1;

	root = (root >> 1) + (root & 1u);
	if (root == ((uint64_t)1 << 24)) {
		root >>= 1;
		exponent++;
	}
	bits = (uint32_t)((exponent + 23 + 127) << 23) | ((uint32_t)root & 0x7FFFFFu);

	float y;

	memcpy(&y, &bits, sizeof(y));
	return y;
}

void tinyaot_l2_normalization_f32(const struct tinyaot_l2_normalization_f32_params *p,
				  const float *input, float *output)
{
	for (int32_t r = 0; r < p->rows; r++) {
		const float *x = input + r * p->depth;
		float *y = output + r * p->depth;
		float squares = 0.0f;

		for (int32_t c = 0; c < p->depth; c++) {
			squares += x[c] * x[c];
		}
		float norm = sqrt_f32(squares);

		norm = norm < 1e-6f ? 1e-6f : norm;
		for (int32_t c = 0; c < p->depth; c++) {
			y[c] = x[c] / norm;
		}
	}
}
