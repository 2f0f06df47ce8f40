/* Data movement kernels. TFLM's reference kernels for these ops compute every element's
 * input index from its coordinates; here the compiler has reduced each op to strides and
 * byte runs, so the device only adds pointers and copies. No element is ever converted, so
 * int8 outputs keep the input's bytes exactly as TFLM's do.
 */
#include <stddef.h>
#include <string.h>

#include <tinyaot/movement.h>

#define TINYAOT_OUTER_DIMS (TINYAOT_COPY_MAX_DIMS - 1)

/* Fixed-size copies compile to plain loads and stores; only odd run lengths call memcpy.
 * Positions are byte offsets, not pointers, so that stepping past the last element of a
 * row (or back before the first, for negative strides) never forms an invalid pointer.
 */
static uint8_t *tinyaot_copy_row(uint8_t *out, const uint8_t *in, int32_t at, int32_t n,
				 int32_t stride, size_t run)
{
	switch (run) {
	case 1:
		for (int32_t i = 0; i < n; i++, at += stride) {
			*out++ = in[at];
		}
		break;
	case 2:
		for (int32_t i = 0; i < n; i++, at += stride, out += 2) {
			memcpy(out, in + at, 2);
		}
		break;
	case 4:
		for (int32_t i = 0; i < n; i++, at += stride, out += 4) {
			memcpy(out, in + at, 4);
		}
		break;
	default:
		for (int32_t i = 0; i < n; i++, at += stride, out += run) {
			memcpy(out, in + at, run);
		}
		break;
	}
	return out;
}

void tinyaot_copy(const struct tinyaot_copy_params *p, const void *input, void *output)
{
	const uint8_t *in = (const uint8_t *)input;
	uint8_t *out = (uint8_t *)output;
	int32_t index[TINYAOT_OUTER_DIMS] = {0};
	int32_t at = p->offset;
	int d;

	do {
		out = tinyaot_copy_row(out, in, at, p->count[TINYAOT_OUTER_DIMS],
				       p->stride[TINYAOT_OUTER_DIMS], (size_t)p->run);
		/* Step the outer dims like an odometer, innermost first. */
		for (d = TINYAOT_OUTER_DIMS - 1; d >= 0; d--) {
			at += p->stride[d];
			if (++index[d] < p->count[d]) {
				break;
			}
			at -= p->stride[d] * p->count[d];
			index[d] = 0;
		}
	} while (d >= 0);
}

void tinyaot_move(const struct tinyaot_move_params *p, const void *input, void *output)
{
	memmove(output, input, (size_t)p->bytes);
}

void tinyaot_copy_table(const struct tinyaot_copy_table_params *p, const void *input, void *output)
{
	const uint8_t *in = (const uint8_t *)input;
	uint8_t *out = (uint8_t *)output;
	const int32_t *table[TINYAOT_COPY_MAX_DIMS];
	int32_t index[TINYAOT_OUTER_DIMS] = {0};
	const int32_t *inner = p->offsets;
	const size_t run = (size_t)p->run;
	int d;

	for (d = 0; d < TINYAOT_COPY_MAX_DIMS; d++) {
		table[d] = inner;
		inner += p->count[d];
	}
	inner = table[TINYAOT_OUTER_DIMS];
	do {
		const uint8_t *row = in;

		for (d = 0; d < TINYAOT_OUTER_DIMS; d++) {
			row += table[d][index[d]];
		}
		for (int32_t i = 0; i < p->count[TINYAOT_OUTER_DIMS]; i++, out += run) {
			memcpy(out, row + inner[i], run);
		}
		for (d = TINYAOT_OUTER_DIMS - 1; d >= 0; d--) {
			if (++index[d] < p->count[d]) {
				break;
			}
			index[d] = 0;
		}
	} while (d >= 0);
}

void tinyaot_gather(const struct tinyaot_gather_params *p, const void *input,
		    const int32_t *indices, void *output)
{
	const uint8_t *block = (const uint8_t *)input;
	uint8_t *out = (uint8_t *)output;
	const size_t row = (size_t)p->row;

	for (int32_t o = 0; o < p->outer; o++, block += (size_t)p->axis_size * row) {
		for (int32_t k = 0; k < p->count; k++, out += row) {
			const int32_t i = indices[k];

			if (i >= 0 && i < p->axis_size) {
				memcpy(out, block + (size_t)i * row, row);
			} else {
				memset(out, 0, row);
			}
		}
	}
}

static void tinyaot_split_part(const struct tinyaot_parts_params *p, int32_t k, const uint8_t *in,
			       uint8_t *out)
{
	const size_t n = (size_t)p->part_bytes[k];

	for (int32_t i = 0; i < k; i++) {
		in += p->part_bytes[i];
	}
	for (int32_t o = 0; o < p->outer; o++, out += n) {
		memcpy(out, in + (size_t)o * (size_t)p->block, n);
	}
}

static void tinyaot_pack_part(const struct tinyaot_parts_params *p, int32_t k, const uint8_t *in,
			      uint8_t *out)
{
	const size_t n = (size_t)p->part_bytes[k];

	for (int32_t i = 0; i < k; i++) {
		out += p->part_bytes[i];
	}
	for (int32_t o = 0; o < p->outer; o++, in += n) {
		memcpy(out + (size_t)o * (size_t)p->block, in, n);
	}
}

/* The generated code passes a list of const pointers (codegen builds one kind of list);
 * split's outputs are writable arena tensors, so writing through them is defined.
 */
#define TINYAOT_PARTS(suffix, type)                                                                \
	void tinyaot_split_##suffix(const struct tinyaot_parts_params *p, const type *input,       \
				    const type *const *outputs)                                    \
	{                                                                                          \
		for (int32_t k = 0; k < p->parts_count; k++) {                                     \
			tinyaot_split_part(p, k, (const uint8_t *)input,                           \
					   (uint8_t *)(uintptr_t)outputs[k]);                      \
		}                                                                                  \
	}                                                                                          \
	void tinyaot_pack_##suffix(const struct tinyaot_parts_params *p,                           \
				   const type *const *inputs, type *output)                        \
	{                                                                                          \
		for (int32_t k = 0; k < p->parts_count; k++) {                                     \
			tinyaot_pack_part(p, k, (const uint8_t *)inputs[k], (uint8_t *)output);    \
		}                                                                                  \
	}

TINYAOT_PARTS(s8, int8_t)
TINYAOT_PARTS(i16, int16_t)
TINYAOT_PARTS(i32, int32_t)
TINYAOT_PARTS(f32, float)
