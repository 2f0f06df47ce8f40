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
 * VMLA, and the blocks of eight loaded by VLDM below, where the FPU has single precision.
 * -DTINYAOT_VMLA_F32=0 takes the C instead, VMUL and VADD under ISO C or -ffp-contract=off, one
 * load per float: as exact, more instructions and, by the estimate of bench/README.md ("Float32
 * on the Cortex-M4F"), slightly more cycles on a Cortex-M4F, though its VMLA takes 3 cycles.
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

#if TINYAOT_VMLA_F32
/*
 * Blocks of eight: VLDM loads eight floats in one instruction, where the loops below take one
 * VLDR each. A block's inputs and weights go to fixed registers (s8-s31, clobbered), the
 * accumulators stay in the others; each accumulator still takes its products in input order.
 */
#define TINYAOT_MLA4_(a, x0, x1, x2, x3)                                                           \
	"vmla.f32 %[" a "], " x0 ", s24\n\t"                                                       \
	"vmla.f32 %[" a "], " x1 ", s25\n\t"                                                       \
	"vmla.f32 %[" a "], " x2 ", s26\n\t"                                                       \
	"vmla.f32 %[" a "], " x3 ", s27\n\t"
#define TINYAOT_VMLA_(a, x, w) "vmla.f32 %[" a "], " x ", " w "\n\t"
#define TINYAOT_S16_31_                                                                            \
	"s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", \
		"s29", "s30", "s31"
#endif

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
	const float *end = x + n;

#if TINYAOT_VMLA_F32
	/* Eight inputs in s16-s23, a row's eight weights in s24-s31. */
#define TINYAOT_ROW8_(a, w)                                                                        \
	"vldmia %[" w "]!, {s24-s31}\n\t"                                                          \
	"vmla.f32 %[" a "], s16, s24\n\t"                                                          \
	"vmla.f32 %[" a "], s17, s25\n\t"                                                          \
	"vmla.f32 %[" a "], s18, s26\n\t"                                                          \
	"vmla.f32 %[" a "], s19, s27\n\t"                                                          \
	"vmla.f32 %[" a "], s20, s28\n\t"                                                          \
	"vmla.f32 %[" a "], s21, s29\n\t"                                                          \
	"vmla.f32 %[" a "], s22, s30\n\t"                                                          \
	"vmla.f32 %[" a "], s23, s31\n\t"
	/* Two statements of four rows, as an asm takes at most 30 operands: each loads the inputs.
	 */
	for (const float *end8 = x + (n & ~7); x != end8;) {
		__asm__("vldmia %[x], {s16-s23}\n\t" TINYAOT_ROW8_("a0", "w0")
				TINYAOT_ROW8_("a1", "w1") TINYAOT_ROW8_("a2", "w2")
					TINYAOT_ROW8_("a3", "w3")
			: [a0] "+t"(a0), [a1] "+t"(a1), [a2] "+t"(a2), [a3] "+t"(a3), [w0] "+r"(w0),
			  [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
			: [x] "r"(x)
			: TINYAOT_S16_31_, "memory");
		__asm__("vldmia %[x]!, {s16-s23}\n\t" TINYAOT_ROW8_("a4", "w4")
				TINYAOT_ROW8_("a5", "w5") TINYAOT_ROW8_("a6", "w6")
					TINYAOT_ROW8_("a7", "w7")
			: [a4] "+t"(a4), [a5] "+t"(a5), [a6] "+t"(a6), [a7] "+t"(a7), [x] "+r"(x),
			  [w4] "+r"(w4), [w5] "+r"(w5), [w6] "+r"(w6), [w7] "+r"(w7)
			:
			: TINYAOT_S16_31_, "memory");
	}
#undef TINYAOT_ROW8_
#endif
	for (; x != end; x++) {
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
	const float *end = x + n;

#if TINYAOT_VMLA_F32
	/* Eight inputs of x in s8-s15, of y in s16-s23, a row's weights four at a time in s24-s27.
	 */
#define TINYAOT_ROW4X2_(a, b, w)                                                                   \
	"vldmia %[" w "]!, {s24-s27}\n\t" TINYAOT_MLA4_(a, "s8", "s9", "s10", "s11")               \
		TINYAOT_MLA4_(b, "s16", "s17", "s18",                                              \
			      "s19") "vldmia %[" w                                                 \
				     "]!, {s24-s27}\n\t" TINYAOT_MLA4_(a, "s12", "s13", "s14",     \
								       "s15")                      \
					     TINYAOT_MLA4_(b, "s20", "s21", "s22", "s23")
	for (const float *end8 = x + (n & ~7); x != end8;) {
		__asm__("vldmia %[x]!, {s8-s15}\n\t"
			"vldmia %[y]!, {s16-s23}\n\t" TINYAOT_ROW4X2_("a0", "b0", "w0")
				TINYAOT_ROW4X2_("a1", "b1", "w1") TINYAOT_ROW4X2_("a2", "b2", "w2")
					TINYAOT_ROW4X2_("a3", "b3", "w3")
			: [a0] "+t"(a0), [a1] "+t"(a1), [a2] "+t"(a2), [a3] "+t"(a3), [b0] "+t"(b0),
			  [b1] "+t"(b1), [b2] "+t"(b2), [b3] "+t"(b3), [x] "+r"(x), [y] "+r"(y),
			  [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
			:
			: "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", TINYAOT_S16_31_,
			  "memory");
	}
#undef TINYAOT_ROW4X2_
#endif
	for (; x != end; x++, y++) {
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

/* a[k] += x[k] * w[k], k = 0 .. 7: one tap of eight adjacent depthwise channels. */
static inline void tinyaot_mla8_f32(float a[8], const float *x, const float *w)
{
#if TINYAOT_VMLA_F32
	__asm__("vldmia %[x], {s16-s23}\n\t"
		"vldmia %[w], {s24-s31}\n\t" TINYAOT_VMLA_("a0", "s16", "s24")
			TINYAOT_VMLA_("a1", "s17", "s25") TINYAOT_VMLA_("a2", "s18", "s26")
				TINYAOT_VMLA_("a3", "s19", "s27") TINYAOT_VMLA_("a4", "s20", "s28")
					TINYAOT_VMLA_("a5", "s21", "s29")
						TINYAOT_VMLA_("a6", "s22", "s30")
							TINYAOT_VMLA_("a7", "s23", "s31")
		: [a0] "+t"(a[0]), [a1] "+t"(a[1]), [a2] "+t"(a[2]), [a3] "+t"(a[3]),
		  [a4] "+t"(a[4]), [a5] "+t"(a[5]), [a6] "+t"(a[6]), [a7] "+t"(a[7])
		: [x] "r"(x), [w] "r"(w)
		: TINYAOT_S16_31_, "memory");
#else
	for (int k = 0; k < 8; k++) {
		a[k] = tinyaot_mac_f32(a[k], x[k], w[k]);
	}
#endif
}

/* a[k] += v * w[k], k = 0 .. 7: eight depthwise channels of one input channel. */
static inline void tinyaot_mla8s_f32(float a[8], float v, const float *w)
{
#if TINYAOT_VMLA_F32
	__asm__("vldmia %[w], {s24-s31}\n\t" TINYAOT_VMLA_("a0", "%[v]", "s24")
			TINYAOT_VMLA_("a1", "%[v]", "s25") TINYAOT_VMLA_("a2", "%[v]", "s26")
				TINYAOT_VMLA_("a3", "%[v]", "s27")
					TINYAOT_VMLA_("a4", "%[v]", "s28")
						TINYAOT_VMLA_("a5", "%[v]", "s29")
							TINYAOT_VMLA_("a6", "%[v]", "s30")
								TINYAOT_VMLA_("a7", "%[v]", "s31")
		: [a0] "+t"(a[0]), [a1] "+t"(a[1]), [a2] "+t"(a[2]), [a3] "+t"(a[3]),
		  [a4] "+t"(a[4]), [a5] "+t"(a[5]), [a6] "+t"(a[6]), [a7] "+t"(a[7])
		: [v] "t"(v), [w] "r"(w)
		: TINYAOT_S16_31_, "memory");
#else
	for (int k = 0; k < 8; k++) {
		a[k] = tinyaot_mac_f32(a[k], v, w[k]);
	}
#endif
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

/*
 * tinyaot_out_f32 of acc[0..3] into out[0..3], their biases from bias[index] on; the test for a
 * bias once for the four.
 */
static inline void tinyaot_out4_f32(float *out, const float *acc, const float *bias, int32_t index,
				    float act_min, float act_max)
{
	float a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];

	if (bias != NULL) {
		a0 += bias[index];
		a1 += bias[index + 1];
		a2 += bias[index + 2];
		a3 += bias[index + 3];
	}
	out[0] = tinyaot_out_f32(a0, NULL, 0, act_min, act_max);
	out[1] = tinyaot_out_f32(a1, NULL, 0, act_min, act_max);
	out[2] = tinyaot_out_f32(a2, NULL, 0, act_min, act_max);
	out[3] = tinyaot_out_f32(a3, NULL, 0, act_min, act_max);
}

#endif /* TINYAOT_MAC_F32_H_ */
