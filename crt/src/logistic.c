/* LOGISTIC. The int8 path is TFLite's reference one: the input rescaled to Q4.27 and
 * gemmlowp's fixed-point logistic, step by step; any other rounding would not be
 * bit-exact. The output is Q0.8 with zero point -128 (scale 1/256).
 */
#include <tinyaot/expf.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/gemmlowp.h>
#include <tinyaot/logistic.h>

#define INPUT_INT_BITS  4
#define OUTPUT_INT_BITS 8

/* gemmlowp logistic for a Q4.27 input: Q0.31 result. */
static int32_t logistic_q4(int32_t a)
{
	if (a == 0) {
		return 1 << 30;
	}

	const int32_t abs_a = a > 0 ? a : -a;
	const int32_t if_positive =
		tinyaot_one_over_one_plus_x(tinyaot_exp_on_negative_values(-abs_a, INPUT_INT_BITS));

	return a > 0 ? if_positive : INT32_MAX - if_positive;
}

void tinyaot_logistic_s8(const struct tinyaot_logistic_s8_params *p, const int8_t *input,
			 int8_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const int32_t x = input[i] - p->input_zero_point;

		if (x <= -p->input_range_radius) {
			output[i] = INT8_MIN;
		} else if (x >= p->input_range_radius) {
			output[i] = INT8_MAX;
		} else {
			const int32_t in_q4 =
				tinyaot_mbqm(x, p->input_multiplier, p->input_left_shift);
			const int32_t out_q0 = logistic_q4(in_q4);
			const int32_t out = tinyaot_rdbpot(out_q0, 31 - OUTPUT_INT_BITS) + INT8_MIN;

			output[i] = (int8_t)tinyaot_clamp_i32(out, INT8_MIN, INT8_MAX);
		}
	}
}

/* TFLite's reference approximation with its cut-offs (e^x below -9, 1 above ~16.6),
 * so that results follow the interpreter's rather than the exact sigmoid.
 */
void tinyaot_logistic_f32(const struct tinyaot_logistic_f32_params *p, const float *input,
			  float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float v = input[i];

		if (v > 16.619047164916992188f) {
			output[i] = 1.0f;
		} else if (v < -9.0f) {
			output[i] = tinyaot_expf(v);
		} else {
			output[i] = 1.0f / (1.0f + tinyaot_expf(-v));
		}
	}
}
