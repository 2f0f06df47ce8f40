/* Reference MAX_POOL_2D. Element order as in the convolutions. */
#include <float.h>
#include <string.h>

#include <tinyaot/dsp_simd.h>
#include <tinyaot/fixedpoint.h>
#include <tinyaot/isa.h>
#include <tinyaot/pooling.h>

#if TINYAOT_MVE_KERNELS
#include <arm_mve.h>
#endif

/* The largest value of an int16 window: height and width its extent in bytes, row and cell
 * the strides between its rows and cells.
 */
static int32_t tinyaot_window_max_s16(const uint8_t *start, int32_t height, int32_t width,
				      int32_t row, int32_t cell)
{
	int32_t m = INT16_MIN;

	for (int32_t dy = 0; dy < height; dy += row) {
		for (int32_t dx = dy; dx < dy + width; dx += cell) {
			m = tinyaot_max_i32(m, *(const int16_t *)(const void *)(start + dx));
		}
	}
	return m;
}

#if TINYAOT_MVE_KERNELS
/*
 * int8 with Helium: per output pixel, 16 channels at a time (the last chunk's lanes past the
 * channels predicated off, so nothing past them is read or written), each window cell one VLDRB
 * and one VMAX; then the clamp and one store. Each read comes no later and each write no
 * earlier than in the portable loop's order (the chunk's outputs are written after all its
 * cells are read), so the planner's overlap gaps hold.
 */
static void tinyaot_max_pool_s8_mve(const struct tinyaot_pool_s8_params *p, const int8_t *input,
				    int8_t *output)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t chunks = (d->channels + 15) / 16;
	const int8x16_t lo = vdupq_n_s8((int8_t)p->act_min);
	const int8x16_t hi = vdupq_n_s8((int8_t)p->act_max);

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox, y0, y1, x0, x1;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const int8_t *in_b = input + b * d->in_h * d->in_w * d->channels;

		tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
		for (int32_t t = 0; t < chunks; t++) {
			const int32_t c = 16 * (d->reverse ? chunks - 1 - t : t);
			const mve_pred16_t live = vctp8q((uint32_t)(d->channels - c));
			int8x16_t m = vdupq_n_s8(INT8_MIN);

			for (int32_t y = y0; y < y1; y++) {
				const int8_t *q = in_b + (y * d->in_w + x0) * d->channels + c;

				for (int32_t x = x0; x < x1; x++, q += d->channels) {
					m = vmaxq_s8(m, vldrbq_z_s8(q, live));
				}
			}
			vstrbq_p_s8(output + pix * d->channels + c, vmaxq_s8(vminq_s8(m, hi), lo),
				    live);
		}
	}
}
#else
/* The window of one output's channel c, walked by pointer steps from q0 (its first cell):
 * height and width in bytes, row and cell the strides. The maxima start at the activation's
 * low end, which is the clamp from below; the clamp from above follows.
 */
static inline int8_t tinyaot_max_pool_s8_one(const int8_t *q0, int32_t height, int32_t width,
					     int32_t row, int32_t cell, int32_t lo, int32_t hi)
{
	int32_t m = lo;

	for (const int8_t *r = q0; r != q0 + height; r += row) {
		for (const int8_t *q = r; q != r + width; q += cell) {
			m = tinyaot_max_i32(m, *q);
		}
	}
	return (int8_t)tinyaot_min_i32(m, hi);
}

#if !TINYAOT_ISA_DSP
/* Per byte of a and b as int8, 0xff where a >= b, else 0. The high bit of t is the comparison
 * of the lower seven bits (each byte of a | 0x80 is above each of b & 0x7f: no borrow crosses
 * a byte); where the signs differ, a is the larger when its sign is clear.
 */
static inline uint32_t tinyaot_swar_ge4(uint32_t a, uint32_t b)
{
	const uint32_t h = 0x80808080u;
	const uint32_t t = (a | h) - (b & ~h);
	const uint32_t ge = ((b & ~a) | (t & ~(a ^ b))) & h;

	return (ge >> 7) * 0xffu;
}
#endif

/* Channels c to c + 3 of one output, as tinyaot_max_pool_s8_one; the four are written after
 * all four are read, which is no earlier than one at a time would write them.
 */
static inline void tinyaot_max_pool_s8_four(const int8_t *q0, int32_t height, int32_t width,
					    int32_t row, int32_t cell, int32_t lo, int32_t hi,
					    int8_t *out)
{
#if TINYAOT_ISA_DSP
	/* The four maxima packed in one word: one load, SSUB8 and SEL per cell. */
	uint32_t m = 0x01010101u * (uint8_t)lo;

	for (const int8_t *r = q0; r != q0 + height; r += row) {
		for (const int8_t *q = r; q != r + width; q += cell) {
			m = tinyaot_dsp_max4(tinyaot_dsp_word(q), m);
		}
	}
	m = tinyaot_dsp_min4(m, 0x01010101u * (uint8_t)hi);
	memcpy(out, &m, sizeof(m));
#else
	/* The same in a word without SIMD instructions (tinyaot_swar_ge4): one load and about a
	 * dozen ALU instructions a cell, where four loads and four compare-and-moves took 16.
	 */
	uint32_t m = 0x01010101u * (uint8_t)lo;
	const uint32_t top = 0x01010101u * (uint8_t)hi;

	for (const int8_t *r = q0; r != q0 + height; r += row) {
		for (const int8_t *q = r; q != r + width; q += cell) {
			uint32_t v;

			memcpy(&v, q, sizeof(v));
			m ^= (m ^ v) & tinyaot_swar_ge4(v, m);
		}
	}
	/* Without an activation's top (127, the most layers) the clamp changes no byte. */
	if (hi < INT8_MAX) {
		m ^= (m ^ top) & tinyaot_swar_ge4(m, top);
	}
	memcpy(out, &m, sizeof(m));
#endif
}

/*
 * int8: per output pixel, four channels at a time and the last channels % 4 one at a time
 * (reverse: those first, then the fours from the last), the window walked by pointer steps
 * (the int16 loop calls a function per output and channel). Reads come no later and writes
 * no earlier than one channel at a time in the element order, so the overlap gaps hold.
 */
static void tinyaot_max_pool_s8_cells(const struct tinyaot_pool_s8_params *p, const int8_t *input,
				      int8_t *output)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	const int32_t channels = d->channels;
	const int32_t fours = channels - channels % 4;
	const int32_t row = d->in_w * channels;
	const int32_t lo = p->act_min, hi = p->act_max;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const struct tinyaot_pool_extent e = tinyaot_pool_extent(d, b, oy, ox, channels);
		const int8_t *const first = input + e.first;
		int8_t *const out = output + pix * channels;

		if (d->reverse) {
			for (int32_t c = channels - 1; c >= fours; c--) {
				out[c] = tinyaot_max_pool_s8_one(first + c, e.height, e.width, row,
								 channels, lo, hi);
			}
			for (int32_t c = fours - 4; c >= 0; c -= 4) {
				tinyaot_max_pool_s8_four(first + c, e.height, e.width, row,
							 channels, lo, hi, out + c);
			}
		} else {
			for (int32_t c = 0; c < fours; c += 4) {
				tinyaot_max_pool_s8_four(first + c, e.height, e.width, row,
							 channels, lo, hi, out + c);
			}
			for (int32_t c = fours; c < channels; c++) {
				out[c] = tinyaot_max_pool_s8_one(first + c, e.height, e.width, row,
								 channels, lo, hi);
			}
		}
	}
}
#endif

void tinyaot_max_pool_s8(const struct tinyaot_pool_s8_params *p, const int8_t *input,
			 int8_t *output)
{
#if TINYAOT_MVE_KERNELS
	tinyaot_max_pool_s8_mve(p, input, output);
#else
	tinyaot_max_pool_s8_cells(p, input, output);
#endif
}

void tinyaot_max_pool_s16(const struct tinyaot_pool_s8_params *p, const int16_t *input,
			  int16_t *output)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;
	/* Bytes from one window cell to the next along a row, and from one row to the next. */
	const int32_t cell = d->channels * 2;
	const int32_t row = d->in_w * cell;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const struct tinyaot_pool_extent e = tinyaot_pool_extent(d, b, oy, ox, cell);
		const uint8_t *const first = (const uint8_t *)input + e.first;

		for (int32_t j = 0; j < d->channels; j++) {
			const int32_t c = d->reverse ? d->channels - 1 - j : j;
			const int32_t m =
				tinyaot_window_max_s16(first + c * 2, e.height, e.width, row, cell);

			output[pix * d->channels + c] =
				(int16_t)tinyaot_clamp_i32(m, p->act_min, p->act_max);
		}
	}
}

void tinyaot_max_pool_f32(const struct tinyaot_pool_f32_params *p, const float *input,
			  float *output)
{
	const struct tinyaot_pool_dims *d = &p->d;
	const int32_t pixels = d->batches * d->out_h * d->out_w;

	for (int32_t i = 0; i < pixels; i++) {
		int32_t b, oy, ox, y0, y1, x0, x1;
		const int32_t pix = tinyaot_pool_pixel(d, i, pixels, &b, &oy, &ox);
		const float *in_b = input + b * d->in_h * d->in_w * d->channels;

		tinyaot_pool_window(d, oy, ox, &y0, &y1, &x0, &x1);
		for (int32_t j = 0; j < d->channels; j++) {
			const int32_t c = d->reverse ? d->channels - 1 - j : j;
			float m = -FLT_MAX;

			for (int32_t y = y0; y < y1; y++) {
				for (int32_t x = x0; x < x1; x++) {
					const float v = in_b[(y * d->in_w + x) * d->channels + c];

					m = v > m ? v : m;
				}
			}
			m = m < p->act_min ? p->act_min : m;
			output[pix * d->channels + c] = m > p->act_max ? p->act_max : m;
		}
	}
}
