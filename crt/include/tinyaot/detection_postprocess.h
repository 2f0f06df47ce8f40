/* TFLite_Detection_PostProcess (the CUSTOM op SSD models end with): box decoding, then fast or
 * regular non-max suppression, as TFLite Micro's detection_postprocess.cc computes them.
 */
#ifndef TINYAOT_DETECTION_POSTPROCESS_H_
#define TINYAOT_DETECTION_POSTPROCESS_H_

#include <stdint.h>

struct tinyaot_detection_postprocess_f32_params {
	int32_t num_boxes;
	/* Floats per box encoding (>= 4: y, x, h, w come first). */
	int32_t box_stride;
	int32_t num_classes;
	/* Last dim of the class predictions; label_offset is 1 when it has a background class. */
	int32_t classes_with_background;
	int32_t label_offset;
	int32_t max_detections;
	/* Fast NMS: min(max_classes_per_detection, num_classes) entries per detection. */
	int32_t categories_per_anchor;
	int32_t detections_per_class;
	int32_t use_regular_nms;
	/* Entries of the classes and scores outputs (boxes: 4 each); those not written are 0. */
	int32_t capacity;
	float score_threshold;
	float iou_threshold;
	float y_scale, x_scale, h_scale, w_scale;
	/* Byte offsets of the work arrays in the scratch buffer (the compiler's layout). */
	uint32_t decoded_offset, order_offset, merge_offset, active_offset, selected_offset;
	uint32_t max_scores_offset, class_index_offset;
	uint32_t top_index_offset, top_score_offset, next_index_offset, next_score_offset;
};

/* Returns 0, or -1 when a decoded box is empty or inverted (TFLM fails the invoke then; the
 * outputs here hold no detection).
 */
int tinyaot_detection_postprocess_f32(const struct tinyaot_detection_postprocess_f32_params *p,
				      const float *box_encodings, const float *class_predictions,
				      const float *anchors, float *detection_boxes,
				      float *detection_classes, float *detection_scores,
				      float *num_detections, uint8_t *scratch);

#endif /* TINYAOT_DETECTION_POSTPROCESS_H_ */
