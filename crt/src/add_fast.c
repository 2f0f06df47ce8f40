/* ADD int8 without broadcasting, fast path (tinyaot/add_fast.h). */
#include <tinyaot/add_fast.h>
#include <tinyaot/fixedpoint.h>

void tinyaot_add_fast_s8(const struct tinyaot_add_fast_params *p, const int8_t *input1,
			 const int8_t *input2, int8_t *output)
{
	const int32_t *t1 = p->table1 + 128;
	const int32_t *t2 = p->table2 + 128;
	const int32_t m = p->mult, h = p->high, e = p->shift;
	const int32_t lo = p->act_min, hi = p->act_max;
	const int32_t n = p->count;

	if (lo == -128 && hi == 127) {
		for (int32_t i = 0; i < n; i++) {
			const int32_t sum = t1[input1[i]] + t2[input2[i]];

			output[i] = (int8_t)tinyaot_sat_s8(tinyaot_requant(sum, m, h, e));
		}
		return;
	}
	for (int32_t i = 0; i < n; i++) {
		const int32_t sum = t1[input1[i]] + t2[input2[i]];

		output[i] = (int8_t)tinyaot_clamp_i32(tinyaot_requant(sum, m, h, e), lo, hi);
	}
}
