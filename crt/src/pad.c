/* Reference PAD: every output row is either all border or border, input row, border.
 * A pure copy, so every dtype shares the walk; only the fill value differs.
 */
#include <string.h>

#include <tinyaot/pad.h>

static inline void tinyaot_fill(uint8_t *out, int32_t count, const void *value, size_t size)
{
	if (size == 1) {
		memset(out, *(const uint8_t *)value, (size_t)count);
		return;
	}
	for (int32_t i = 0; i < count; i++) {
		memcpy(out + (size_t)i * size, value, size);
	}
}

static inline int32_t inside(const struct tinyaot_pad_shape *s, int32_t d, int32_t i)
{
	return i >= s->before[d] && i < s->before[d] + s->in[d];
}

/* Inlined with a constant element size so that each caller gets plain stores. */
static inline void tinyaot_pad(const struct tinyaot_pad_shape *s, const uint8_t *in, uint8_t *out,
			       const void *value, size_t size)
{
	const int32_t row = s->out[4];
	const int32_t head = s->before[4];
	const int32_t body = s->in[4];
	const int32_t tail = row - head - body;

	for (int32_t i0 = 0; i0 < s->out[0]; i0++) {
		for (int32_t i1 = 0; i1 < s->out[1]; i1++) {
			for (int32_t i2 = 0; i2 < s->out[2]; i2++) {
				for (int32_t i3 = 0; i3 < s->out[3]; i3++) {
					if (!(inside(s, 0, i0) && inside(s, 1, i1) &&
					      inside(s, 2, i2) && inside(s, 3, i3))) {
						tinyaot_fill(out, row, value, size);
						out += (size_t)row * size;
						continue;
					}
					tinyaot_fill(out, head, value, size);
					out += (size_t)head * size;
					memcpy(out, in, (size_t)body * size);
					out += (size_t)body * size;
					in += (size_t)body * size;
					tinyaot_fill(out, tail, value, size);
					out += (size_t)tail * size;
				}
			}
		}
	}
}

void tinyaot_pad_s8(const struct tinyaot_pad_s8_params *p, const int8_t *input, int8_t *output)
{
	const int8_t value = (int8_t)p->pad_value;

	tinyaot_pad(&p->s, (const uint8_t *)input, (uint8_t *)output, &value, sizeof(value));
}

void tinyaot_pad_s16(const struct tinyaot_pad_s16_params *p, const int16_t *input, int16_t *output)
{
	const int16_t value = (int16_t)p->pad_value;

	tinyaot_pad(&p->s, (const uint8_t *)input, (uint8_t *)output, &value, sizeof(value));
}

void tinyaot_pad_f32(const struct tinyaot_pad_f32_params *p, const float *input, float *output)
{
	tinyaot_pad(&p->s, (const uint8_t *)input, (uint8_t *)output, &p->pad_value, sizeof(float));
}
