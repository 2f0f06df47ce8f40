/*
 * Which instruction-set features the runtime's optimised routines may use, from the compiler's
 * predefined macros (Arm C Language Extensions). Every kernel tests these, never the compiler's
 * macros itself, so that one place says which routine a target gets; where a feature is
 * absent (Cortex-M0 and M0+, RISC-V, x86, the host) the portable C is built instead.
 */
#ifndef TINYAOT_ISA_H_
#define TINYAOT_ISA_H_

/* Thumb-2 (Armv7-M and Armv8-M Mainline: Cortex-M3, M4, M7, M33, M55, M85). */
#if defined(__thumb2__)
#define TINYAOT_ISA_THUMB2 1
#else
#define TINYAOT_ISA_THUMB2 0
#endif

/* The DSP extension's packed multiplies (SMLAD, SXTB16): Cortex-M4, M7, M33 and M55 with it. */
#if TINYAOT_ISA_THUMB2 && defined(__ARM_FEATURE_DSP)
#define TINYAOT_ISA_DSP 1
#else
#define TINYAOT_ISA_DSP 0
#endif

/* Helium (M-profile Vector Extension), integer: Cortex-M55 and M85. */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define TINYAOT_ISA_MVE 1
#else
#define TINYAOT_ISA_MVE 0
#endif

/*
 * A single-precision FPU of the Arm 32-bit architecture (FPv4-SP, FPv5: Cortex-M4F, M7, M33 and
 * M55 with one), under any float ABI: its registers and VMLA.F32 are there.
 */
#if defined(__arm__) && defined(__ARM_FP) && (__ARM_FP & 4)
#define TINYAOT_ISA_FPU_SP 1
#else
#define TINYAOT_ISA_FPU_SP 0
#endif

/* SSAT and USAT (__ssat in arm_acle.h): Armv6-M lacks them, every Thumb-2 core has them. */
#if defined(__ARM_FEATURE_SAT)
#define TINYAOT_ISA_SAT 1
#else
#define TINYAOT_ISA_SAT 0
#endif

/* CLZ, through GCC's and clang's __builtin_clz: Armv5 and up, every Thumb-2 core. */
#if defined(__ARM_FEATURE_CLZ) && defined(__GNUC__)
#define TINYAOT_ISA_CLZ 1
#else
#define TINYAOT_ISA_CLZ 0
#endif

/*
 * The Thumb-2 routines of crt/src/thumb2/, GNU assembler source (macros, .rept, .altmacro);
 * clang's integrated assembler does not take all of it, so with clang those kernels are the
 * portable C. Macros only in this file: the assembler's preprocessor reads it too.
 */
#if TINYAOT_ISA_THUMB2 && defined(__GNUC__) && !defined(__clang__)
#define TINYAOT_ASM_THUMB2 1
#else
#define TINYAOT_ASM_THUMB2 0
#endif

/* 1 where the kernels that use the DSP extension are built (the CONV_2D pair routine of
 * crt/src/thumb2/conv_routines.S, the FULLY_CONNECTED loop of crt/src/dsp/): the generated code
 * then selects the weights in their layouts.
 */
#if TINYAOT_ASM_THUMB2 && TINYAOT_ISA_DSP
#define TINYAOT_DSP_KERNELS 1
#else
#define TINYAOT_DSP_KERNELS 0
#endif

/* 1 where the Helium kernels of crt/src/mve/ are built (arm_mve.h's intrinsics, which GCC and
 * clang both have): the generated code then selects the weights in their layouts. They take
 * precedence over the DSP kernels, which such a core also builds.
 */
#if TINYAOT_ISA_MVE
#define TINYAOT_MVE_KERNELS 1
#else
#define TINYAOT_MVE_KERNELS 0
#endif

#endif /* TINYAOT_ISA_H_ */
