/* TFLite_Detection_PostProcess, float32, as TFLite Micro's detection_postprocess.cc runs it:
 *
 * - Decoding in double, as TFLM casts it (exp() here is our own, no libm), each coordinate
 *   rounded to float once.
 * - Candidates are the boxes whose score is >= the threshold, sorted by decreasing score with
 *   ties in box order: TFLM's stable merge sort gives that order, and so does any stable sort.
 * - Single-class NMS visits candidates in that order and drops a later one whose IoU (float,
 *   TFLM's formula) with a selected box is > the threshold.
 * - Fast NMS ranks each anchor's classes by decreasing score, ties to the lower class
 *   (TFLM's partial sort), and runs NMS on each anchor's best score.
 * - Regular NMS runs NMS per class and keeps the best max_detections of everything selected,
 *   ties to the earlier: TFLM's partial sort of the kept list followed by the new class's
 *   selection is a merge in which a new entry passes a kept one only with a larger score.
 *
 * All work arrays are in `scratch`, laid out by the compiler; nothing is allocated.
 */
#include <stdint.h>
#include <string.h>
#include <tinyaot/detection_postprocess.h>
#include <tinyaot/tinyaot.h>

#define BOX_FLOATS 4

struct work {
	float *decoded;
	int32_t *order;
	int32_t *merge;
	uint8_t *active;
	int32_t *selected;
};

static void *at(uint8_t *scratch, uint32_t offset)
{
	return (void *)(scratch + offset);
}

/* 2^k for -1022 <= k <= 1023. */
static double pow2(int32_t k)
{
	const uint64_t bits = (uint64_t)(k + 1023) << 52;
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* exp(x) in double: x = k ln2 + r, |r| <= ln2/2, Taylor to degree 13 (truncation < 1e-17),
 * ln2 split so that k ln2 is exact: within a few ulp of double, so the floats rounded from it
 * are those of std::exp.
 */
static double tinyaot_exp_f64(double x)
{
	if (x != x) {
		return x;
	}
	if (x > 709.782712893384) {
		const double big = 1e308;

		return big * 10.0;
	}
	if (x < -745.2) {
		return 0.0;
	}
	const double k = (double)(int32_t)(x * 1.4426950408889634 + (x < 0.0 ? -0.5 : 0.5));
	const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
	double q = 1.0 / 6227020800.0;
	static const double tinyaot_inv_factorials[12] = {
		1.0 / 479001600.0,
		1.0 / 39916800.0,
		1.0 / 3628800.0,
		1.0 / 362880.0,
		1.0 / 40320.0,
		1.0 / 5040.0,
		1.0 / 720.0,
		1.0 / 120.0,
		1.0 / 24.0,
		1.0 / 6.0,
		0.5,
		1.0,
	};

	for (int i = 0; i < 12; i++) {
		q = q * r + tinyaot_inv_factorials[i];
	}
	q = q * r + 1.0;
	/* 2^k in two steps, each a normal double even where 2^k is not. */
	const int32_t ki = (int32_t)k;
	const int32_t half = ki / 2;

	return q * pow2(half) * pow2(ki - half);
}

static void decode(const struct tinyaot_detection_postprocess_f32_params *p, const float *encodings,
		   const float *anchors, float *boxes)
{
	for (int32_t i = 0; i < p->num_boxes; i++) {
		const float *e = encodings + i * p->box_stride;
		const float *a = anchors + i * BOX_FLOATS; /* y, x, h, w */
		const float yc =
			(float)((double)e[0] / (double)p->y_scale * (double)a[2] + (double)a[0]);
		const float xc =
			(float)((double)e[1] / (double)p->x_scale * (double)a[3] + (double)a[1]);
		const float half_h =
			(float)(0.5 * tinyaot_exp_f64((double)e[2] / (double)p->h_scale) *
				(double)a[2]);
		const float half_w =
			(float)(0.5 * tinyaot_exp_f64((double)e[3] / (double)p->w_scale) *
				(double)a[3]);
		float *b = boxes + i * BOX_FLOATS; /* ymin, xmin, ymax, xmax */

		b[0] = yc - half_h;
		b[1] = xc - half_w;
		b[2] = yc + half_h;
		b[3] = xc + half_w;
	}
}

static int boxes_valid(const float *boxes, int32_t n)
{
	for (int32_t i = 0; i < n; i++) {
		const float *b = boxes + i * BOX_FLOATS;

		if (b[0] >= b[2] || b[1] >= b[3]) {
			return 0;
		}
	}
	return 1;
}

static float max_f(float a, float b)
{
	return a < b ? b : a;
}

static float min_f(float a, float b)
{
	return b < a ? b : a;
}

static float iou(const float *boxes, int32_t i, int32_t j)
{
	const float *bi = boxes + i * BOX_FLOATS;
	const float *bj = boxes + j * BOX_FLOATS;
	const float area_i = (bi[2] - bi[0]) * (bi[3] - bi[1]);
	const float area_j = (bj[2] - bj[0]) * (bj[3] - bj[1]);

	if (area_i <= 0.0f || area_j <= 0.0f) {
		return 0.0f;
	}
	const float ymin = max_f(bi[0], bj[0]);
	const float xmin = max_f(bi[1], bj[1]);
	const float ymax = min_f(bi[2], bj[2]);
	const float xmax = min_f(bi[3], bj[3]);
	const float inter = max_f(ymax - ymin, 0.0f) * max_f(xmax - xmin, 0.0f);

	return inter / (area_i + area_j - inter);
}

/* Whether box a comes before box b: higher score, or the same score and a lower index. */
static int tinyaot_before(const float *scores, int32_t stride, int32_t a, int32_t b)
{
	const float sa = scores[a * stride];
	const float sb = scores[b * stride];

	return sa > sb || (sa == sb && a < b);
}

/* Bottom-up merge sort of the box indices in order[0..n) by tinyaot_before(). */
static void sort_boxes(int32_t *order, int32_t *tmp, int32_t n, const float *scores, int32_t stride)
{
	for (int32_t width = 1; width < n; width *= 2) {
		for (int32_t lo = 0; lo < n; lo += 2 * width) {
			const int32_t mid = lo + width < n ? lo + width : n;
			const int32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			int32_t i = lo;
			int32_t j = mid;

			for (int32_t k = lo; k < hi; k++) {
				if (i < mid && (j >= hi || !tinyaot_before(scores, stride, order[j],
									   order[i]))) {
					tmp[k] = order[i++];
				} else {
					tmp[k] = order[j++];
				}
			}
		}
		memcpy(order, tmp, (size_t)n * sizeof(*order));
	}
}

/* TFLM's NonMaxSuppressionSingleClassHelper: the selected boxes, best first, in selected[]. */
static int32_t tinyaot_nms_single(const struct tinyaot_detection_postprocess_f32_params *p,
				  const struct work *w, const float *scores, int32_t stride,
				  int32_t max_out)
{
	int32_t kept = 0;

	for (int32_t i = 0; i < p->num_boxes; i++) {
		if (scores[i * stride] >= p->score_threshold) {
			w->order[kept++] = i;
		}
	}
	sort_boxes(w->order, w->merge, kept, scores, stride);
	const int32_t out_size = kept < max_out ? kept : max_out;
	int32_t selected = 0;
	int32_t active = kept;

	memset(w->active, 1, (size_t)kept);
	for (int32_t i = 0; i < kept; i++) {
		if (active == 0 || selected >= out_size) {
			break;
		}
		if (!w->active[i]) {
			continue;
		}
		w->selected[selected++] = w->order[i];
		w->active[i] = 0;
		active--;
		for (int32_t j = i + 1; j < kept; j++) {
			if (w->active[j] &&
			    iou(w->decoded, w->order[i], w->order[j]) > p->iou_threshold) {
				w->active[j] = 0;
				active--;
			}
		}
	}
	return selected;
}

static void put(float *boxes, float *classes, float *scores, int32_t at_index, const float *box,
		float cls, float score)
{
	memcpy(boxes + at_index * BOX_FLOATS, box, BOX_FLOATS * sizeof(float));
	classes[at_index] = cls;
	scores[at_index] = score;
}

static float nms_fast(const struct tinyaot_detection_postprocess_f32_params *p,
		      const struct work *w, uint8_t *scratch, const float *predictions,
		      float *boxes, float *classes, float *scores)
{
	float *max_scores = at(scratch, p->max_scores_offset);
	int32_t *class_index = at(scratch, p->class_index_offset);
	const int32_t k = p->categories_per_anchor;

	for (int32_t row = 0; row < p->num_boxes; row++) {
		const float *s = predictions + row * p->classes_with_background + p->label_offset;
		int32_t *ci = class_index + row * k;
		int32_t prev = -1;

		/* The t-th class is the best of those after the (t-1)-th in tinyaot_before()'s
		 * order. */
		for (int32_t t = 0; t < k; t++) {
			int32_t best = -1;

			for (int32_t c = 0; c < p->num_classes; c++) {
				if (prev >= 0 && !tinyaot_before(s, 1, prev, c)) {
					continue;
				}
				if (best < 0 || tinyaot_before(s, 1, c, best)) {
					best = c;
				}
			}
			ci[t] = best < 0 ? 0 : best;
			prev = ci[t];
		}
		max_scores[row] = s[ci[0]];
	}
	const int32_t selected = tinyaot_nms_single(p, w, max_scores, 1, p->max_detections);

	for (int32_t i = 0; i < selected; i++) {
		const int32_t box = w->selected[i];
		const float *s = predictions + box * p->classes_with_background + p->label_offset;
		const int32_t *ci = class_index + box * k;

		for (int32_t c = 0; c < k; c++) {
			put(boxes, classes, scores, i * k + c, w->decoded + box * BOX_FLOATS,
			    (float)ci[c], s[ci[c]]);
		}
	}
	return (float)(selected * k);
}

static float nms_regular(const struct tinyaot_detection_postprocess_f32_params *p,
			 const struct work *w, uint8_t *scratch, const float *predictions,
			 float *boxes, float *classes, float *scores)
{
	int32_t *top_index = at(scratch, p->top_index_offset);
	float *top_score = at(scratch, p->top_score_offset);
	int32_t *next_index = at(scratch, p->next_index_offset);
	float *next_score = at(scratch, p->next_score_offset);
	const int32_t stride = p->classes_with_background;
	int32_t top = 0;

	for (int32_t col = 0; col < p->num_classes; col++) {
		const float *s = predictions + p->label_offset + col;
		const int32_t selected =
			tinyaot_nms_single(p, w, s, stride, p->detections_per_class);
		const int32_t total = top + selected;
		const int32_t keep = total < p->max_detections ? total : p->max_detections;
		int32_t i = 0;
		int32_t j = 0;

		for (int32_t k = 0; k < keep; k++) {
			const float sj = j < selected ? s[w->selected[j] * stride] : 0.0f;

			if (j < selected && (i >= top || sj > top_score[i])) {
				next_index[k] = w->selected[j] * stride + col + p->label_offset;
				next_score[k] = sj;
				j++;
			} else {
				next_index[k] = top_index[i];
				next_score[k] = top_score[i];
				i++;
			}
		}
		memcpy(top_index, next_index, (size_t)keep * sizeof(*top_index));
		memcpy(top_score, next_score, (size_t)keep * sizeof(*top_score));
		top = keep;
	}
	for (int32_t i = 0; i < top; i++) {
		const int32_t anchor = top_index[i] / stride;
		const int32_t cls = top_index[i] - anchor * stride - p->label_offset;

		put(boxes, classes, scores, i, w->decoded + anchor * BOX_FLOATS, (float)cls,
		    top_score[i]);
	}
	return (float)top;
}

int tinyaot_detection_postprocess_f32(const struct tinyaot_detection_postprocess_f32_params *p,
				      const float *box_encodings, const float *class_predictions,
				      const float *anchors, float *detection_boxes,
				      float *detection_classes, float *detection_scores,
				      float *num_detections, uint8_t *scratch)
{
	const struct work w = {
		.decoded = at(scratch, p->decoded_offset),
		.order = at(scratch, p->order_offset),
		.merge = at(scratch, p->merge_offset),
		.active = at(scratch, p->active_offset),
		.selected = at(scratch, p->selected_offset),
	};

	/* Entries past the detections are 0, as TFLM's regular NMS writes them. */
	memset(detection_boxes, 0, (size_t)p->capacity * BOX_FLOATS * sizeof(float));
	memset(detection_classes, 0, (size_t)p->capacity * sizeof(float));
	memset(detection_scores, 0, (size_t)p->capacity * sizeof(float));
	num_detections[0] = 0.0f;
	decode(p, box_encodings, anchors, w.decoded);
	if (!boxes_valid(w.decoded, p->num_boxes)) {
		return TINYAOT_ERR_KERNEL;
	}
	if (p->use_regular_nms) {
		num_detections[0] = nms_regular(p, &w, scratch, class_predictions, detection_boxes,
						detection_classes, detection_scores);
	} else {
		num_detections[0] = nms_fast(p, &w, scratch, class_predictions, detection_boxes,
					     detection_classes, detection_scores);
	}
	return TINYAOT_OK;
}
