/* Comparisons, LOGICAL_AND, LOGICAL_OR and SELECT_V2 after TFLite Micro's reference
 * kernels. A bool is one byte, 0 or 1, as TFLite stores it.
 */
#include <tinyaot/binary.h>
#include <tinyaot/compare.h>
#include <tinyaot/fixedpoint.h>

/* The class bit of an element pair (see struct tinyaot_compare_params): the comparisons
 * a < b, a == b, a > b tried in turn, all false only when a NaN is involved.
 */
#define CLASS_OF(x, y) ((x) < (y) ? 0 : ((x) == (y) ? 1 : ((x) > (y) ? 2 : 3)))

static uint8_t truth_of(int32_t truth, int32_t cls)
{
	return (uint8_t)((truth >> cls) & 1);
}

/* ComparisonWithScaling: each input offset, shifted left and brought to a common scale
 * on its own, then the two int32 values compared.
 */
static uint8_t compare_s8_one(const struct tinyaot_compare_s8_params *p, int32_t a, int32_t b)
{
	const int32_t sa = tinyaot_mbqm((a + p->input1_offset) * (1 << p->left_shift),
					p->input1_multiplier, p->input1_shift);
	const int32_t sb = tinyaot_mbqm((b + p->input2_offset) * (1 << p->left_shift),
					p->input2_multiplier, p->input2_shift);

	return truth_of(p->truth, CLASS_OF(sa, sb));
}

void tinyaot_compare_s8(const struct tinyaot_compare_s8_params *p, const int8_t *input1,
			const int8_t *input2, uint8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       compare_s8_one(p, input1[c.offset1], input2[c.offset2]));
}

void tinyaot_compare_f32(const struct tinyaot_compare_params *p, const float *input1,
			 const float *input2, uint8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       truth_of(p->truth, CLASS_OF(input1[c.offset1], input2[c.offset2])));
}

void tinyaot_compare_i32(const struct tinyaot_compare_params *p, const int32_t *input1,
			 const int32_t *input2, uint8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       truth_of(p->truth, CLASS_OF(input1[c.offset1], input2[c.offset2])));
}

void tinyaot_compare_bool(const struct tinyaot_compare_params *p, const uint8_t *input1,
			  const uint8_t *input2, uint8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output,
			       truth_of(p->truth, CLASS_OF(input1[c.offset1], input2[c.offset2])));
}

void tinyaot_logical_and(const struct tinyaot_logical_params *p, const uint8_t *input1,
			 const uint8_t *input2, uint8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, (uint8_t)(input1[c.offset1] && input2[c.offset2]));
}

void tinyaot_logical_or(const struct tinyaot_logical_params *p, const uint8_t *input1,
			const uint8_t *input2, uint8_t *output)
{
	TINYAOT_BROADCAST_EACH(&p->b, output, (uint8_t)(input1[c.offset1] || input2[c.offset2]));
}

void tinyaot_select(const struct tinyaot_select_params *p, const uint8_t *condition, const void *x,
		    const void *y, void *output)
{
	const uint8_t *xb = (const uint8_t *)x;
	const uint8_t *yb = (const uint8_t *)y;
	uint8_t *out = (uint8_t *)output;
	const int32_t size = p->size;

	for (int32_t i0 = 0; i0 < p->shape[0]; i0++) {
		for (int32_t i1 = 0; i1 < p->shape[1]; i1++) {
			for (int32_t i2 = 0; i2 < p->shape[2]; i2++) {
				for (int32_t i3 = 0; i3 < p->shape[3]; i3++) {
					const int32_t ic =
						i0 * p->stride_c[0] + i1 * p->stride_c[1] +
						i2 * p->stride_c[2] + i3 * p->stride_c[3];
					const int32_t ix =
						i0 * p->stride_x[0] + i1 * p->stride_x[1] +
						i2 * p->stride_x[2] + i3 * p->stride_x[3];
					const int32_t iy =
						i0 * p->stride_y[0] + i1 * p->stride_y[1] +
						i2 * p->stride_y[2] + i3 * p->stride_y[3];
					const uint8_t *from =
						condition[ic] ? xb + ix * size : yb + iy * size;

					for (int32_t k = 0; k < size; k++) {
						out[k] = from[k];
					}
					out += size;
				}
			}
		}
	}
}
