/* Reference FULLY_CONNECTED, as TFLite Micro's reference kernel rounds it. */
#include <tinyaot/fixedpoint.h>
#include <tinyaot/fully_connected.h>
#include <tinyaot/mac_f32.h>

void tinyaot_fc_s8(const struct tinyaot_fc_s8_params *p, const int8_t *input, const int8_t *filter,
		   const int32_t *bias, int8_t *output)
{
	for (int32_t b = 0; b < p->batches; b++) {
		const int8_t *in = input + b * p->depth;

		for (int32_t u = 0; u < p->units; u++) {
			const int8_t *f = filter + u * p->depth;
			int32_t acc = 0;

			for (int32_t i = 0; i < p->depth; i++) {
				acc += (f[i] + p->filter_offset) * (in[i] + p->input_offset);
			}
			if (bias != NULL) {
				acc += bias[u];
			}
			acc = tinyaot_mbqm(acc, p->multiplier[u], p->shift[u]);
			acc = tinyaot_clamp_i32(acc + p->output_offset, p->act_min, p->act_max);
			*output++ = (int8_t)acc;
		}
	}
}

/* int16x8: TFLM's int64 accumulator; its offsets are all 0 here. */
void tinyaot_fc_s16(const struct tinyaot_fc_s16_params *p, const int16_t *input,
		    const int8_t *filter, const int64_t *bias, int16_t *output)
{
	for (int32_t b = 0; b < p->batches; b++) {
		const int16_t *in = input + b * p->depth;

		for (int32_t u = 0; u < p->units; u++) {
			const int8_t *f = filter + u * p->depth;
			int64_t acc = 0;

			for (int32_t i = 0; i < p->depth; i++) {
				acc += f[i] * in[i];
			}
			if (bias != NULL) {
				acc += bias[u];
			}
			const int32_t m = p->multiplier[u], s = p->shift[u];
			const int32_t v = p->int32_sum ? tinyaot_mbqm((int32_t)acc, m, s)
						       : tinyaot_mbqm64(acc, m, s);

			*output++ = (int16_t)tinyaot_clamp_i32(v, p->act_min, p->act_max);
		}
	}
}

/* TFLite Micro's sum per unit, in its order; eight units share each input load. */
void tinyaot_fc_f32(const struct tinyaot_fc_f32_params *p, const float *input, const float *filter,
		    const float *bias, float *output)
{
	const int32_t eights = p->units & ~7;
	/* Read once: the stores below could alias the parameters as far as C knows. */
	const float lo = p->act_min, hi = p->act_max;

	for (int32_t b = 0; b < p->batches; b++) {
		const float *in = input + b * p->depth;
		int32_t u = 0;

		for (; u < eights; u += 8) {
			float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};

			tinyaot_dot8_f32(acc, in, filter + u * p->depth, p->depth, p->depth);
			tinyaot_out4_f32(output, acc, bias, u, lo, hi);
			tinyaot_out4_f32(output + 4, acc + 4, bias, u + 4, lo, hi);
			output += 8;
		}
		for (; u < p->units; u++) {
			const float acc =
				tinyaot_dot_f32(0.0f, in, filter + u * p->depth, p->depth);

			*output++ = tinyaot_out_f32(acc, bias, u, lo, hi);
		}
	}
}
