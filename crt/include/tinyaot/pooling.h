/* AVERAGE_POOL_2D and MAX_POOL_2D over NHWC tensors. */
#ifndef TINYAOT_POOLING_H_
#define TINYAOT_POOLING_H_

#include <stdint.h>

struct tinyaot_pool_dims {
	int32_t batches;
	int32_t in_h, in_w;
	int32_t channels;
	int32_t out_h, out_w;
	int32_t k_h, k_w;
	int32_t stride_h, stride_w;
	int32_t pad_h, pad_w;
	int32_t reverse; /* 1: last output element first (see struct tinyaot_conv_dims) */
};

struct tinyaot_pool_s8_params {
	struct tinyaot_pool_dims d;
	int32_t act_min, act_max;
};

struct tinyaot_pool_f32_params {
	struct tinyaot_pool_dims d;
	float act_min, act_max;
};

void tinyaot_avg_pool_s8(const struct tinyaot_pool_s8_params *p, const int8_t *input,
			 int8_t *output);
void tinyaot_avg_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input,
			  float *output);
/* int16 takes the int8 parameters, its activation range in int16. */
void tinyaot_avg_pool_s16(const struct tinyaot_pool_s8_params *p, const int16_t *input,
			  int16_t *output);
void tinyaot_max_pool_s16(const struct tinyaot_pool_s8_params *p, const int16_t *input,
			  int16_t *output);
void tinyaot_max_pool_s8(const struct tinyaot_pool_s8_params *p, const int8_t *input,
			 int8_t *output);
void tinyaot_max_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input,
			  float *output);

/* The output pixel the i-th step of the pixel loop produces (see tinyaot_conv_pixel). */
static inline int32_t tinyaot_pool_pixel(const struct tinyaot_pool_dims *d, int32_t i,
					 int32_t pixels, int32_t *b, int32_t *oy, int32_t *ox)
{
	const int32_t pix = d->reverse ? pixels - 1 - i : i;

	*ox = pix % d->out_w;
	*oy = (pix / d->out_w) % d->out_h;
	*b = pix / (d->out_w * d->out_h);
	return pix;
}

/* The part of the window that lies inside the input, as TFLite clips it. */
static inline void tinyaot_pool_window(const struct tinyaot_pool_dims *d, int32_t oy, int32_t ox,
				       int32_t *y0, int32_t *y1, int32_t *x0, int32_t *x1)
{
	const int32_t iy = oy * d->stride_h - d->pad_h;
	const int32_t ix = ox * d->stride_w - d->pad_w;

	*y0 = iy < 0 ? 0 : iy;
	*y1 = iy + d->k_h > d->in_h ? d->in_h : iy + d->k_h;
	*x0 = ix < 0 ? 0 : ix;
	*x1 = ix + d->k_w > d->in_w ? d->in_w : ix + d->k_w;
}

/* The clipped window in bytes, for walking it by pointer steps, where indices recomputed per
 * cell cost several multiplies each. cell is the bytes of one input pixel.
 */
struct tinyaot_pool_extent {
	int32_t first;  /* offset of the window's first cell from the input */
	int32_t height; /* from the first row to past the last */
	int32_t width;  /* from a row's first cell to past its last */
	int32_t count;  /* cells */
};

static inline struct tinyaot_pool_extent tinyaot_pool_extent(const struct tinyaot_pool_dims *d,
							     int32_t b, int32_t oy, int32_t ox,
							     int32_t cell)
{
	int32_t y0, y1, x0, x1;
	struct tinyaot_pool_extent e;

	tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
	e.first = ((b * d->in_h + y0) * d->in_w + x0) * cell;
	e.height = (y1 - y0) * d->in_w * cell;
	e.width = (x1 - x0) * cell;
	e.count = (y1 - y0) * (x1 - x0);
	return e;
}

#endif /* TINYAOT_POOLING_H_ */
