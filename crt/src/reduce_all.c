/* Reference REDUCE_ALL (TFLM's ReduceGeneric<bool> from true with &&): 1 where every reduced
 * input is true, else 0. Output and reduced elements are visited with odometers over the
 * layout's four dims, so no index is divided back into coordinates.
 */
#include <tinyaot/reduce_all.h>

/* One step of an odometer over dims: the next position and its offset. */
static void tinyaot_reduce_all_advance(const int32_t *dims, const int32_t *stride, int32_t *pos,
				       int32_t *offset)
{
	for (int32_t d = 3; d >= 0; d--) {
		*offset += stride[d];
		if (++pos[d] < dims[d]) {
			return;
		}
		*offset -= dims[d] * stride[d];
		pos[d] = 0;
	}
}

void tinyaot_reduce_all(const struct tinyaot_reduce_all_params *p, const uint8_t *input,
			uint8_t *output)
{
	const struct tinyaot_mean_shape *s = &p->s;
	const int32_t outputs = s->out[0] * s->out[1] * s->out[2] * s->out[3];
	const int32_t reduced = s->red[0] * s->red[1] * s->red[2] * s->red[3];
	int32_t out_pos[4] = {0, 0, 0, 0}, base = 0;

	for (int32_t o = 0; o < outputs; o++) {
		int32_t red_pos[4] = {0, 0, 0, 0}, offset = 0;
		uint8_t all = 1;

		for (int32_t r = 0; r < reduced && all; r++) {
			all = input[base + offset] != 0;
			tinyaot_reduce_all_advance(s->red, s->stride, red_pos, &offset);
		}
		output[o] = all;
		tinyaot_reduce_all_advance(s->out, s->stride, out_pos, &base);
	}
}
