/*
 * The int8 FULLY_CONNECTED block loop of crt/src/fully_connected_fast.c for Thumb-2 (Cortex-M3
 * and up), which spills in C. That file holds the portable C it replaces and checks the job's
 * layout (tinyaot/asm_layout.h).
 */
#include <tinyaot/asm_layout.h>
#include <tinyaot/isa.h>

#if TINYAOT_ASM_THUMB2
	.syntax unified
	.thumb

/*
 * r4-r7 the four accumulators, r1 the inputs, r3 the weights, r0 an input byte, lr a weight;
 * 9 instructions per input (4 MACs), unrolled 8 times. [sp] the job, [sp, #4] the end of the
 * unrolled part, [sp, #8] the end of the inputs.
 */
.macro fc_step
	ldrsb r0, [r1], #1
	ldrsb lr, [r3], #1
	mla r4, lr, r0, r4
	ldrsb lr, [r3], #1
	mla r5, lr, r0, r5
	ldrsb lr, [r3], #1
	mla r6, lr, r0, r6
	ldrsb lr, [r3], #1
	mla r7, lr, r0, r7
.endm

/* Accumulator a: tinyaot_requant() with the unit's mult, high and shift at r2 + m, h, e, SSAT,
 * written at r0 which moves on. r1, ip and lr are scratch.
 */
.macro fc_out a, m, h, e
	ldr r1, [r2, #\m]
	ldr lr, [r2, #\h]
	and ip, \a, #0x80000000
	add lr, lr, \a, asr #31
	eor ip, ip, #0x40000000
	smlal ip, lr, \a, r1
	ldr ip, [r2, #\e]
	asr lr, lr, ip
	ssat lr, #8, lr
	strb lr, [r0], #1
.endm

	.pushsection .text.tinyaot_fc_run_t2,"ax",%progbits
	.syntax unified
	.thumb
	.p2align 2
	.global tinyaot_fc_run_t2
	.hidden tinyaot_fc_run_t2
	.type tinyaot_fc_run_t2, %function
	.thumb_func
tinyaot_fc_run_t2:
	push {r4-r7, lr}
	sub sp, sp, #12
	str r0, [sp]
.Lfc_block:
	ldr r2, [r0, #TINYAOT_FC_JOB_TABLE]
	ldm r2, {r4-r7}
	ldr r1, [r0, #TINYAOT_FC_JOB_X]
	ldr r3, [r0, #TINYAOT_FC_JOB_WEIGHTS]
	ldr r2, [r0, #TINYAOT_FC_JOB_DEPTH]
	add ip, r1, r2
	str ip, [sp, #8]
	bic r2, r2, #7
	add r2, r1, r2
	str r2, [sp, #4]
	cmp r1, r2
	beq .Lfc_tail
.Lfc_8:
	.rept 8
	fc_step
	.endr
	ldr ip, [sp, #4]
	cmp r1, ip
	bne .Lfc_8
.Lfc_tail:
	ldr ip, [sp, #8]
	cmp r1, ip
	beq .Lfc_done
	fc_step
	b .Lfc_tail
.Lfc_done:
	ldr ip, [sp]
	str r3, [ip, #TINYAOT_FC_JOB_WEIGHTS]
	ldr r2, [ip, #TINYAOT_FC_JOB_TABLE]
	ldr r0, [ip, #TINYAOT_FC_JOB_OUT]
	fc_out r4, 16, 20, 24
	fc_out r5, 28, 32, 36
	fc_out r6, 40, 44, 48
	fc_out r7, 52, 56, 60
	ldr ip, [sp]
	str r0, [ip, #TINYAOT_FC_JOB_OUT]
	add r2, r2, #64
	str r2, [ip, #TINYAOT_FC_JOB_TABLE]
	ldr r2, [ip, #TINYAOT_FC_JOB_BLOCKS]
	subs r2, r2, #1
	str r2, [ip, #TINYAOT_FC_JOB_BLOCKS]
	mov r0, ip
	bne .Lfc_block
	add sp, sp, #12
	pop {r4-r7, pc}
	.size tinyaot_fc_run_t2, .-tinyaot_fc_run_t2
	.popsection

#endif /* TINYAOT_ASM_THUMB2 */

/* No executable stack, on the targets whose compilers mark every object so (Linux: native_sim
 * builds with the host's gcc, where the rest assembles to nothing): there an object without the
 * note asks for one, and the linker's warning fails Zephyr's link. Bare-metal toolchains mark
 * no object, and one marked object would make their linker warn about all the others.
 */
#if defined(__linux__) && defined(__ELF__)
	.section .note.GNU-stack, "", %progbits
#endif
