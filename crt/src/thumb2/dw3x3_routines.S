/*
 * The int8 3x3 DEPTHWISE_CONV_2D routines of tinyaot/dwconv_fast.h for Thumb-2 (Cortex-M3 and
 * up): the block routines, the staging and the chunk loop. crt/src/dwconv_fast.c holds the
 * portable C they replace and checks the layout and geometry they have built in
 * (tinyaot/asm_layout.h).
 */
#include <tinyaot/asm_layout.h>
#include <tinyaot/isa.h>

#if TINYAOT_ASM_THUMB2
	.syntax unified
	.thumb

/*
 * Thumb-2 block routines, one per stride and width, written out by assembler macros: GCC
 * spills the C one's accumulators. r0 = records, r1 = stage. Per channel: r1 the bias (the
 * first product of every accumulator adds it; loading it moves r0 to the record's m, with the
 * weights 12 to 4 bytes below), r2-r7 the accumulators, r8-r10 a kernel row's
 * weights, r11 an input; then r8-r10 and ip the channel's m, h, e - 1 and c, r11 and r1
 * scratch; lr walks the stage's slots. The function around them and the requantisation are
 * thumb2/dw3x3_block.inc's.
 */

.altmacro
.macro tdw_mla acc, w, add
	mla r&acc, r&w, r11, r&add
.endm
/* Kernel row r of n outputs of stride s: its three weights, then each input column
 * once, multiplied into every output whose window holds it.
 */
.macro tdw_row n, s, r
	ldrsb r8, [r0, #(r * 3 - 12)]
	ldrsb r9, [r0, #(r * 3 - 11)]
	ldrsb r10, [r0, #(r * 3 - 10)]
	.set tdw_col, 0
	.rept (n - 1) * s + 3
	ldrsb r11, [lr, #(r * 144 + tdw_col * 16)]
	.set tdw_i, 0
	.rept n
	.set tdw_k, tdw_col - tdw_i * s
	.if (tdw_k >= 0) && (tdw_k <= 2)
	.if (r == 0) && (tdw_k == 0)
	tdw_mla %(2 + tdw_i), %(8 + tdw_k), 1
	.else
	tdw_mla %(2 + tdw_i), %(8 + tdw_k), %(2 + tdw_i)
	.endif
	.endif
	.set tdw_i, tdw_i + 1
	.endr
	.set tdw_col, tdw_col + 1
	.endr
.endm
#include "dw3x3_block.inc"
.macro tdw_fn name, n, s, line
	tdw_begin \name
	tdw_row n, s, 0
	tdw_row n, s, 1
	tdw_row n, s, 2
	tdw_end \name, n, line
.endm
	tdw_fn tinyaot_dw3x3_s1_n1, 1, 1, 0
	tdw_fn tinyaot_dw3x3_s1_n2, 2, 1, 0
	tdw_fn tinyaot_dw3x3_s1_n3, 3, 1, 0
	tdw_fn tinyaot_dw3x3_s1_n4, 4, 1, 0
	tdw_fn tinyaot_dw3x3_s1_n5, 5, 1, 0
	tdw_fn tinyaot_dw3x3_s1_n6, 6, 1, 0
	tdw_fn tinyaot_dw3x3_s2_n1, 1, 2, 0
	tdw_fn tinyaot_dw3x3_s2_n2, 2, 2, 0
	tdw_fn tinyaot_dw3x3_s2_n3, 3, 2, 0
	tdw_fn tinyaot_dw3x3_s2_n4, 4, 2, 0
	tdw_fn tinyaot_dw3x3_line_s1_n1, 1, 1, 1
	tdw_fn tinyaot_dw3x3_line_s1_n2, 2, 1, 1
	tdw_fn tinyaot_dw3x3_line_s1_n3, 3, 1, 1
	tdw_fn tinyaot_dw3x3_line_s1_n4, 4, 1, 1
	tdw_fn tinyaot_dw3x3_line_s1_n5, 5, 1, 1
	tdw_fn tinyaot_dw3x3_line_s1_n6, 6, 1, 1
	tdw_fn tinyaot_dw3x3_line_s2_n1, 1, 2, 1
	tdw_fn tinyaot_dw3x3_line_s2_n2, 2, 2, 1
	tdw_fn tinyaot_dw3x3_line_s2_n3, 3, 2, 1
	tdw_fn tinyaot_dw3x3_line_s2_n4, 4, 2, 1
.noaltmacro

/*
 * tinyaot_dw3x3_stage_t2(slot, rows, k) is tinyaot_dw3x3_stage for chunks of 16 or 8 channels of
 * word-aligned input (k->words = 4 or 2): an LDM and an STM (LDRD and STRD) per column. r0 the
 * stage row, r1 rows, r2 the input row (0 when padding), r3 the zero point, r4-r7 a column, r8 =
 * k->ch, r9 = k->cols, r10 = k->ja, r11 = k->jb, ip a count, lr the stage column.
 */

.macro tdw_zero
	str r3, [lr]
	str r3, [lr, #4]
	str r3, [lr, #8]
	str r3, [lr, #12]
	add lr, lr, #16
.endm
/* A column of 16 channels, or of 8; the stage's columns are 16 bytes apart. */
.macro tdw_copy16
	ldm r2, {r4-r7}
	add r2, r2, r8
	stm lr!, {r4-r7}
.endm
.macro tdw_copy8
	ldrd r4, r5, [r2]
	add r2, r2, r8
	strd r4, r5, [lr], #16
.endm
.macro tdw_stage_row copy
	ldr r2, [r1], #4
	mov lr, r0
	cbnz r2, 9f
	mov ip, r9
	b 3f
9:
	movs ip, r10
	beq 2f
1:
	tdw_zero
	subs ip, ip, #1
	bne 1b
2:
	sub ip, r11, r10

/* The jb - ja (1 to TINYAOT_DW3X3_COLS) columns inside the input: straight copies,
 * entered with TBB so that they end together, instead of a loop with a test a column.
 */
	tbb [pc, ip]
	.Ltdw_t\@:
	.byte 0
	.byte (.Ltdw_c1\@ - .Ltdw_t\@) / 2
	.byte (.Ltdw_c2\@ - .Ltdw_t\@) / 2
	.byte (.Ltdw_c3\@ - .Ltdw_t\@) / 2
	.byte (.Ltdw_c4\@ - .Ltdw_t\@) / 2
	.byte (.Ltdw_c5\@ - .Ltdw_t\@) / 2
	.byte (.Ltdw_c6\@ - .Ltdw_t\@) / 2
	.byte (.Ltdw_c7\@ - .Ltdw_t\@) / 2
	.byte (.Ltdw_c8\@ - .Ltdw_t\@) / 2
	.byte (.Ltdw_c9\@ - .Ltdw_t\@) / 2
	.p2align 1
	.Ltdw_c9\@:
	\copy
	.Ltdw_c8\@:
	\copy
	.Ltdw_c7\@:
	\copy
	.Ltdw_c6\@:
	\copy
	.Ltdw_c5\@:
	\copy
	.Ltdw_c4\@:
	\copy
	.Ltdw_c3\@:
	\copy
	.Ltdw_c2\@:
	\copy
	.Ltdw_c1\@:
	\copy
	subs ip, r9, r11
	beq 4f
3:
	tdw_zero
	subs ip, ip, #1
	bne 3b
4:
	add r0, r0, #144
.endm
	.pushsection .text.tinyaot_dw3x3_stage_t2,"ax",%progbits
	.syntax unified
	.thumb
	.p2align 2
	.global tinyaot_dw3x3_stage_t2
	.hidden tinyaot_dw3x3_stage_t2
	.type tinyaot_dw3x3_stage_t2, %function
	.thumb_func
tinyaot_dw3x3_stage_t2:
	push {r4-r11, lr}

/* Where rows[] ends, on the stack: a loop over the three rows is 400 bytes less code
 * than writing them out, for 3 instructions a row.
 */
	add r4, r1, #12
	push {r4}
	ldm r2, {r3, r8-r11, ip}
	cmp ip, #4
	bne 6f
7:
	tdw_stage_row tdw_copy16
	ldr ip, [sp]
	cmp r1, ip
	bne 7b
	add sp, sp, #4
	pop {r4-r11, pc}
6:
	tdw_stage_row tdw_copy8
	ldr ip, [sp]
	cmp r1, ip
	bne 6b
	add sp, sp, #4
	pop {r4-r11, pc}
	.size tinyaot_dw3x3_stage_t2, .-tinyaot_dw3x3_stage_t2
	.popsection

/*
 * tinyaot_dw3x3_chunks_t2(g, slot) runs every chunk of a group whose chunks are all 16 channels, or
 * one of 8, with word-aligned input and output: stage (tinyaot_dw3x3_stage_t2), block routine, then
 * the outputs copied from the stage to the output tensor, an LDM and an STM each. It is the C
 * loop of tinyaot_dwconv_fast_s8 without its per-chunk calls and tests. r4 = g, r5 = slot,
 * r6 the chunks left; r7, r8, ip and lr carry the copies.
 */

	.pushsection .text.tinyaot_dw3x3_chunks_t2,"ax",%progbits
	.syntax unified
	.thumb
	.p2align 2
	.global tinyaot_dw3x3_chunks_t2
	.hidden tinyaot_dw3x3_chunks_t2
	.type tinyaot_dw3x3_chunks_t2, %function
	.thumb_func
tinyaot_dw3x3_chunks_t2:
	push {r4-r8, lr}
	mov r4, r0
	mov r5, r1
	ldr r6, [r4, #TINYAOT_DW_GROUP_CHUNKS]
1:
	mov r0, r5
	add r1, r4, #TINYAOT_DW_GROUP_ROWS
	mov r2, r4
	bl tinyaot_dw3x3_stage_t2
	ldr r0, [r4, #TINYAOT_DW_GROUP_RECORDS]
	mov r1, r5
	ldr r2, [r4, #TINYAOT_DW_GROUP_N]
	ldr r3, [r4, #TINYAOT_DW_GROUP_P]
	ldr ip, [r4, #TINYAOT_DW_GROUP_FN]
	blx ip
	ldr r0, [r4, #TINYAOT_DW_GROUP_OUT]
	ldr r1, [r4, #TINYAOT_DW_GROUP_K_CH]
	add r2, r5, #432
	ldr r3, [r4, #TINYAOT_DW_GROUP_N]
	ldr ip, [r4, #TINYAOT_DW_GROUP_K_WORDS]

/* The n (1 to 6) outputs: straight copies entered with TBB, the last without the step. */
	cmp ip, #4
	bne 3f
	tbb [pc, r3]
.Ltdw_o16_t:
	.byte 0
	.byte (.Ltdw_o16_1 - .Ltdw_o16_t) / 2
	.byte (.Ltdw_o16_2 - .Ltdw_o16_t) / 2
	.byte (.Ltdw_o16_3 - .Ltdw_o16_t) / 2
	.byte (.Ltdw_o16_4 - .Ltdw_o16_t) / 2
	.byte (.Ltdw_o16_5 - .Ltdw_o16_t) / 2
	.byte (.Ltdw_o16_6 - .Ltdw_o16_t) / 2
	.p2align 1
.Ltdw_o16_6:
	ldm r2!, {r7, r8, ip, lr}
	stm r0, {r7, r8, ip, lr}
	add r0, r0, r1
.Ltdw_o16_5:
	ldm r2!, {r7, r8, ip, lr}
	stm r0, {r7, r8, ip, lr}
	add r0, r0, r1
.Ltdw_o16_4:
	ldm r2!, {r7, r8, ip, lr}
	stm r0, {r7, r8, ip, lr}
	add r0, r0, r1
.Ltdw_o16_3:
	ldm r2!, {r7, r8, ip, lr}
	stm r0, {r7, r8, ip, lr}
	add r0, r0, r1
.Ltdw_o16_2:
	ldm r2!, {r7, r8, ip, lr}
	stm r0, {r7, r8, ip, lr}
	add r0, r0, r1
.Ltdw_o16_1:
	ldm r2!, {r7, r8, ip, lr}
	stm r0, {r7, r8, ip, lr}
	b 4f
3:
	tbb [pc, r3]
.Ltdw_o8_t:
	.byte 0
	.byte (.Ltdw_o8_1 - .Ltdw_o8_t) / 2
	.byte (.Ltdw_o8_2 - .Ltdw_o8_t) / 2
	.byte (.Ltdw_o8_3 - .Ltdw_o8_t) / 2
	.byte (.Ltdw_o8_4 - .Ltdw_o8_t) / 2
	.byte (.Ltdw_o8_5 - .Ltdw_o8_t) / 2
	.byte (.Ltdw_o8_6 - .Ltdw_o8_t) / 2
	.p2align 1
.Ltdw_o8_6:
	ldrd r7, r8, [r2], #16
	strd r7, r8, [r0]
	add r0, r0, r1
.Ltdw_o8_5:
	ldrd r7, r8, [r2], #16
	strd r7, r8, [r0]
	add r0, r0, r1
.Ltdw_o8_4:
	ldrd r7, r8, [r2], #16
	strd r7, r8, [r0]
	add r0, r0, r1
.Ltdw_o8_3:
	ldrd r7, r8, [r2], #16
	strd r7, r8, [r0]
	add r0, r0, r1
.Ltdw_o8_2:
	ldrd r7, r8, [r2], #16
	strd r7, r8, [r0]
	add r0, r0, r1
.Ltdw_o8_1:
	ldrd r7, r8, [r2], #16
	strd r7, r8, [r0]
4:
	subs r6, r6, #1
	beq 5f

/* The next chunk: 16 channels on in records, outputs and (where not padding) rows. */
	ldr r0, [r4, #TINYAOT_DW_GROUP_RECORDS]
	ldr r1, [r4, #TINYAOT_DW_GROUP_CHUNK_RECORD]
	add r0, r0, r1
	str r0, [r4, #TINYAOT_DW_GROUP_RECORDS]
	ldr r0, [r4, #TINYAOT_DW_GROUP_OUT]
	add r0, r0, #16
	str r0, [r4, #TINYAOT_DW_GROUP_OUT]
	add ip, r4, #TINYAOT_DW_GROUP_ROWS
	ldm ip, {r0-r2}
	cmp r0, #0
	it ne
	addne r0, r0, #16
	cmp r1, #0
	it ne
	addne r1, r1, #16
	cmp r2, #0
	it ne
	addne r2, r2, #16
	stm ip, {r0-r2}
	b 1b
5:
	pop {r4-r8, pc}
	.size tinyaot_dw3x3_chunks_t2, .-tinyaot_dw3x3_chunks_t2
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
