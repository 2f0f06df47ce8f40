/* LOGISTIC, and int16 TANH (int8 LOGISTIC is a table the compiler fills). The int16 paths are
 * TFLite's: interpolation in its 256-entry table of 2^16 sigmoid(i / 24), which tanh reads as
 * 2 sigmoid(2x) - 1; the LSTM's int16 gates use the same functions.
 */
#include <tinyaot/expf.h>
#include <tinyaot/logistic.h>

/* The numbers of TFLite's table, a fit for interpolation that no closed form rounds to:
 * bit-exactness takes them as they are. The tests compare int16 LOGISTIC and TANH with TFLite Micro
 * on every input value.
 */
const uint16_t tinyaot_sigmoid_table[256] = {
	32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
	41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
	48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
	54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
	58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
	61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
	63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
	64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
	64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
	65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
	65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
	65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
	65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
	65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
	65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
	65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
	65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
	65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
	65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
	65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
};

int16_t tinyaot_sigmoid16(int32_t x)
{
	const uint32_t a = (uint32_t)(x < 0 ? -x : x);
	const uint32_t hi = a >> 9;
	uint32_t r = 0x7FFFu << 10;

	if (hi < 255) {
		const uint32_t lo = tinyaot_sigmoid_table[hi];

		r = (lo << 9) + (a & 0x1FFu) * (tinyaot_sigmoid_table[hi + 1] - lo);
	}
	r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
	return (int16_t)(r >> 10);
}

int16_t tinyaot_tanh16(int32_t x)
{
	const uint32_t a = (uint32_t)(x < 0 ? -x : x);
	const uint32_t hi = a >> 8;
	int32_t r = 0xFFFF << 8;

	if (hi < 255) {
		const uint32_t lo = tinyaot_sigmoid_table[hi];

		r = (int32_t)((lo << 8) + (a & 0xFFu) * (tinyaot_sigmoid_table[hi + 1] - lo));
	}
	r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
	return (int16_t)(r >> 8);
}

void tinyaot_logistic_s16(const struct tinyaot_logistic_s16_params *p, const int16_t *input,
			  int16_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = tinyaot_sigmoid16(
			tinyaot_act16_input(input[i], p->input_multiplier, p->input_left_shift));
	}
}

void tinyaot_tanh_s16(const struct tinyaot_logistic_s16_params *p, const int16_t *input,
		      int16_t *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		output[i] = tinyaot_tanh16(
			tinyaot_act16_input(input[i], p->input_multiplier, p->input_left_shift));
	}
}

/* TFLite's reference approximation with its cut-offs (e^x below -9, 1 above ~16.6),
 * so that results follow the interpreter's rather than the exact sigmoid.
 */
void tinyaot_logistic_f32(const struct tinyaot_logistic_f32_params *p, const float *input,
			  float *output)
{
	for (int32_t i = 0; i < p->size; i++) {
		const float v = input[i];

		if (v > 16.619047164916992188f) {
			output[i] = 1.0f;
		} else if (v < -9.0f) {
			output[i] = tinyaot_expf(v);
		} else {
			output[i] = 1.0f / (1.0f + tinyaot_expf(-v));
		}
	}
}
