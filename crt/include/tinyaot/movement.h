/* Data movement: ops that only move bytes (slices, transposes, splits, packs, tiles, ...).
 * The compiler describes each op as a walk over its output; the kernels do no arithmetic on
 * the elements, so one set serves every dtype.
 */
#ifndef TINYAOT_MOVEMENT_H_
#define TINYAOT_MOVEMENT_H_

#include <stdint.h>

#define TINYAOT_COPY_MAX_DIMS 6

/* The output is written in order as count[0] x ... x count[5] runs of `run` bytes; the run
 * at index (i0, ..., i5) starts at input byte offset + i0 * stride[0] + ... + i5 * stride[5].
 * Strides may be negative (reversed slices) or 0 (broadcasts). The compiler drops dims of
 * size 1, merges dims that are contiguous in both tensors, and pads on the left with 1s.
 */
struct tinyaot_copy_params {
	int32_t offset;
	int32_t run;
	int32_t count[TINYAOT_COPY_MAX_DIMS];
	int32_t stride[TINYAOT_COPY_MAX_DIMS];
};

/* Any dtype: the pointers are the input and output tensors' bytes. */
void tinyaot_copy(const struct tinyaot_copy_params *p, const void *input, void *output);

/* The same walk with an index table per dim instead of a stride: the run at (i0, ..., i5)
 * starts at input byte offsets[i0] + offsets[count[0] + i1] + ..., the tables of the dims
 * one after the other. For maps no stride describes (MIRROR_PAD's reflections).
 */
struct tinyaot_copy_table_params {
	int32_t run;
	int32_t count[TINYAOT_COPY_MAX_DIMS];
	const int32_t *offsets;
};

void tinyaot_copy_table(const struct tinyaot_copy_table_params *p, const void *input, void *output);

/* `bytes` bytes from input to output, which may overlap: a patch stage moves the rows one stripe
 * keeps into the next stripe's buffer, placed over them.
 */
struct tinyaot_move_params {
	int32_t bytes;
};

void tinyaot_move(const struct tinyaot_move_params *p, const void *input, void *output);

/* SPLIT, SPLIT_V, UNPACK and PACK: the whole tensor is `outer` blocks of `block` bytes, and
 * part k holds part_bytes[k] bytes of each block, the parts side by side in order.
 */
struct tinyaot_parts_params {
	int32_t outer;
	int32_t block;
	int32_t parts_count;
	const int32_t *part_bytes;
};

/* Split: `outputs` lists the parts (written through: the list is the arena's tensors). */
void tinyaot_split_s8(const struct tinyaot_parts_params *p, const int8_t *input,
		      const int8_t *const *outputs);
void tinyaot_split_i16(const struct tinyaot_parts_params *p, const int16_t *input,
		       const int16_t *const *outputs);
void tinyaot_split_i32(const struct tinyaot_parts_params *p, const int32_t *input,
		       const int32_t *const *outputs);
void tinyaot_split_f32(const struct tinyaot_parts_params *p, const float *input,
		       const float *const *outputs);

/* Pack: the parts in `inputs` interleaved into the output. */
void tinyaot_pack_s8(const struct tinyaot_parts_params *p, const int8_t *const *inputs,
		     int8_t *output);
void tinyaot_pack_i16(const struct tinyaot_parts_params *p, const int16_t *const *inputs,
		      int16_t *output);
void tinyaot_pack_i32(const struct tinyaot_parts_params *p, const int32_t *const *inputs,
		      int32_t *output);
void tinyaot_pack_f32(const struct tinyaot_parts_params *p, const float *const *inputs,
		      float *output);

/* GATHER and GATHER_ND: from each of `outer` input blocks of axis_size rows of `row` bytes,
 * the rows `indices` names, in order. An index outside the block writes a row of zeros: TFLM
 * does not check runtime indices (its reference reads past the tensor), and constant ones
 * the compiler checks.
 */
struct tinyaot_gather_params {
	int32_t outer;
	int32_t axis_size;
	int32_t row;
	int32_t count; /* indices */
};

void tinyaot_gather(const struct tinyaot_gather_params *p, const void *input,
		    const int32_t *indices, void *output);

#endif /* TINYAOT_MOVEMENT_H_ */
