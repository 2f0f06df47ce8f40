/*
 * The float32 multiply-accumulate of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, rounded as
 * TFLite Micro's reference kernels round `total += input * filter`: the product to float, then
 * the sum, in the order of the reference loops.
 *
 * A fused multiply-add rounds once and gives other sums. Compilers contract `acc + x * w` into
 * one where the FPU has it: GCC in its GNU dialects (Zephyr's and CMake's default) makes the
 * Cortex-M4F's VFMA of it, and in ISO C a VMUL and a VADD, two instructions. On an FPU with
 * single precision the multiply-add is therefore written as VMLA, one instruction that rounds
 * the product and then the sum as VMUL and VADD do. Elsewhere it is C: exact on the host
 * (x86-64 without -mfma) and on soft-float cores; another FPU target with a fused multiply-add
 * needs -ffp-contract=off to match TFLite Micro bit for bit.
 */
#ifndef TINYAOT_MAC_F32_H_
#define TINYAOT_MAC_F32_H_

#include <stddef.h>
#include <stdint.h>
#include <tinyaot/isa.h>

/*
 * VMLA where the FPU has single precision. -DTINYAOT_VMLA_F32=0 takes the C instead, VMUL and
 * VADD under ISO C or -ffp-contract=off: more instructions, but fewer cycles on a Cortex-M4F,
 * whose VMLA takes 3 where VMUL and VADD take 1 each (bench/README.md, "Float32 on the
 * Cortex-M4F").
 */
#ifndef TINYAOT_VMLA_F32
#if TINYAOT_ISA_FPU_SP && defined(__GNUC__)
#define TINYAOT_VMLA_F32 1
#else
#define TINYAOT_VMLA_F32 0
#endif
#endif

static inline float tinyaot_mac_f32(float acc, float x, float w)
{
#if TINYAOT_VMLA_F32
	__asm__("vmla.f32 %0, %1, %2" : "+t"(acc) : "t"(x), "t"(w));
	return acc;
#else
	return acc + x * w;
#endif
}

/*
 * acc[k] += x[i] * w[k * stride + i] for i = 0 .. n-1 in order, k = 0 .. 7: eight rows of
 * weights against one vector, each element of the vector loaded once for the eight.
 */
static inline void tinyaot_dot8_f32(float acc[8], const float *x, const float *w, int32_t stride,
				    int32_t n)
{
	const float *w0 = w, *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
	const float *w4 = w3 + stride, *w5 = w4 + stride, *w6 = w5 + stride, *w7 = w6 + stride;
	float a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
	float a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];

	for (const float *end = x + n; x != end; x++) {
		const float v = *x;

		a0 = tinyaot_mac_f32(a0, v, *w0++);
		a1 = tinyaot_mac_f32(a1, v, *w1++);
		a2 = tinyaot_mac_f32(a2, v, *w2++);
		a3 = tinyaot_mac_f32(a3, v, *w3++);
		a4 = tinyaot_mac_f32(a4, v, *w4++);
		a5 = tinyaot_mac_f32(a5, v, *w5++);
		a6 = tinyaot_mac_f32(a6, v, *w6++);
		a7 = tinyaot_mac_f32(a7, v, *w7++);
	}
	acc[0] = a0;
	acc[1] = a1;
	acc[2] = a2;
	acc[3] = a3;
	acc[4] = a4;
	acc[5] = a5;
	acc[6] = a6;
	acc[7] = a7;
}

/*
 * Four rows of weights against two vectors x and y (two pixels of a convolution): acc[k] for x,
 * acc[4 + k] for y, k = 0 .. 3. Each weight is loaded once for both.
 */
static inline void tinyaot_dot4x2_f32(float acc[8], const float *x, const float *y, const float *w,
				      int32_t stride, int32_t n)
{
	const float *w0 = w, *w1 = w + stride, *w2 = w1 + stride, *w3 = w2 + stride;
	float a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
	float b0 = acc[4], b1 = acc[5], b2 = acc[6], b3 = acc[7];

	for (const float *end = x + n; x != end; x++, y++) {
		const float u = *x, v = *y;
		const float f0 = *w0++, f1 = *w1++, f2 = *w2++, f3 = *w3++;

		a0 = tinyaot_mac_f32(a0, u, f0);
		b0 = tinyaot_mac_f32(b0, v, f0);
		a1 = tinyaot_mac_f32(a1, u, f1);
		b1 = tinyaot_mac_f32(b1, v, f1);
		a2 = tinyaot_mac_f32(a2, u, f2);
		b2 = tinyaot_mac_f32(b2, v, f2);
		a3 = tinyaot_mac_f32(a3, u, f3);
		b3 = tinyaot_mac_f32(b3, v, f3);
	}
	acc[0] = a0;
	acc[1] = a1;
	acc[2] = a2;
	acc[3] = a3;
	acc[4] = b0;
	acc[5] = b1;
	acc[6] = b2;
	acc[7] = b3;
}

/* acc + x[i] * w[i] for i = 0 .. n-1, in order. */
static inline float tinyaot_dot_f32(float acc, const float *x, const float *w, int32_t n)
{
	for (const float *end = x + n; x != end; x++) {
		acc = tinyaot_mac_f32(acc, *x, *w++);
	}
	return acc;
}

/* The output of a sum: its bias added (when the op has one), then the fused activation. */
static inline float tinyaot_out_f32(float acc, const float *bias, int32_t index, float act_min,
				    float act_max)
{
	if (bias != NULL) {
		acc += bias[index];
	}
	acc = acc < act_min ? act_min : acc;
	return acc > act_max ? act_max : acc;
}

/* tinyaot_out_f32 of acc[0..3] into out[0..3], their biases from bias[index] on. */
static inline void tinyaot_out4_f32(float *out, const float *acc, const float *bias, int32_t index,
				    float act_min, float act_max)
{
	out[0] = tinyaot_out_f32(acc[0], bias, index, act_min, act_max);
	out[1] = tinyaot_out_f32(acc[1], bias, index + 1, act_min, act_max);
	out[2] = tinyaot_out_f32(acc[2], bias, index + 2, act_min, act_max);
	out[3] = tinyaot_out_f32(acc[3], bias, index + 3, act_min, act_max);
}

#endif /* TINYAOT_MAC_F32_H_ */
