/* UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro's lstm_eval: int8 activations and weights with
 * an int16 cell state and int16 gates, int16x8 (int16 activations, int64 biases) likewise, and
 * float32. The hidden and cell states are variable
 * tensors in the model's state buffer, updated in place. The weights of the four gates are
 * one array each for the input and the recurrent products, gate after gate in the order
 * input, forget, cell, output, as are the biases.
 */
#ifndef TINYAOT_LSTM_H_
#define TINYAOT_LSTM_H_

#include <stdint.h>

struct tinyaot_lstm_s8_params {
	/* Time major: one sequence of `rows` batch rows; else `sequences` batch rows, one
	 * after the other, each of one row.
	 */
	int32_t sequences;
	int32_t rows;
	int32_t time_steps;
	int32_t input_size;
	int32_t units;
	int32_t input_zero_point;
	int32_t hidden_zero_point;
	/* Each gate's input and recurrent products to its Q3.12 pre-activation. */
	int32_t input_mult[4];
	int32_t input_shift[4];
	int32_t recurrent_mult[4];
	int32_t recurrent_shift[4];
	/* forget gate x cell -> cell, input gate x cell gate -> cell, tanh(cell) x output gate
	 * -> hidden
	 */
	int32_t forget_mult;
	int32_t forget_shift;
	int32_t update_mult;
	int32_t update_shift;
	int32_t hidden_mult;
	int32_t hidden_shift;
	/* The cell state's scale into tanh's Q3.12 input: (x * mult + rounding) >> shift. */
	int32_t cell_tanh_mult;
	int32_t cell_tanh_shift;
	/* |cell| limit in cell units; negative: none */
	int32_t cell_clip;
};

struct tinyaot_lstm_f32_params {
	int32_t sequences;
	int32_t rows;
	int32_t time_steps;
	int32_t input_size;
	int32_t units;
	/* |cell| limit; 0: none */
	float cell_clip;
};

/* Hybrid: float32 activations and states, symmetric int8 weights of one scale each. */
struct tinyaot_lstm_hybrid_params {
	struct tinyaot_lstm_f32_params f;
	float input_scale[4];
	float recurrent_scale[4];
};

/* scratch: 3 x rows x units elements of the cell type. The int8 kernel's bias: per gate and
 * unit the input product's bias less the input zero point times the unit's input weights, then
 * per gate and unit minus the hidden zero point times its recurrent weights (TFLite Micro's
 * effective biases).
 */
void tinyaot_lstm_s8(const struct tinyaot_lstm_s8_params *p, const int8_t *input,
		     const int8_t *input_weights, const int8_t *recurrent_weights,
		     const int32_t *bias, int8_t *hidden, int16_t *cell, int8_t *output,
		     int16_t *scratch);
/* int16x8: the int8 params; the products sum in int64, the hidden state is int16. */
void tinyaot_lstm_s16(const struct tinyaot_lstm_s8_params *p, const int16_t *input,
		      const int8_t *input_weights, const int8_t *recurrent_weights,
		      const int64_t *bias, int16_t *hidden, int16_t *cell, int16_t *output,
		      int16_t *scratch);
void tinyaot_lstm_f32(const struct tinyaot_lstm_f32_params *p, const float *input,
		      const float *input_weights, const float *recurrent_weights, const float *bias,
		      float *hidden, float *cell, float *output, float *scratch);
void tinyaot_lstm_hybrid(const struct tinyaot_lstm_hybrid_params *p, const float *input,
			 const int8_t *input_weights, const int8_t *recurrent_weights,
			 const float *bias, float *hidden, float *cell, float *output,
			 float *scratch);

#endif /* TINYAOT_LSTM_H_ */
