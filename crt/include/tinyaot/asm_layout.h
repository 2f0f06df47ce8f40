/*
 * The byte offsets at which the Thumb-2 assembly (crt/src/thumb2/) reads and writes the C
 * structs it is handed, in one place for both languages: the assembly includes this file, and
 * the C file that defines each struct checks every offset with offsetof, so a change to a
 * struct that the assembly does not follow fails to compile. Macros only: it is read by the
 * assembler's preprocessor too.
 */
#ifndef TINYAOT_ASM_LAYOUT_H_
#define TINYAOT_ASM_LAYOUT_H_

/* struct tinyaot_pair_job (tinyaot/conv_fast.h). The pair routines load run to blocks with one
 * LDM, so those eleven words are consecutive.
 */
#define TINYAOT_PAIR_JOB_RUN          0
#define TINYAOT_PAIR_JOB_RUNS_END     4
#define TINYAOT_PAIR_JOB_LEN          8
#define TINYAOT_PAIR_JOB_WEIGHTS      12
#define TINYAOT_PAIR_JOB_WEIGHTS_STEP 16
#define TINYAOT_PAIR_JOB_TABLE        20
#define TINYAOT_PAIR_JOB_TABLE_STEP   24
#define TINYAOT_PAIR_JOB_OUT_A        28
#define TINYAOT_PAIR_JOB_OUT_B        32
#define TINYAOT_PAIR_JOB_OUT_STEP     36
#define TINYAOT_PAIR_JOB_BLOCKS       40
#define TINYAOT_PAIR_JOB_ACT_MIN      44
#define TINYAOT_PAIR_JOB_ACT_MAX      48
#define TINYAOT_PAIR_JOB_LAST         52
#define TINYAOT_PAIR_JOB_PAIRS        56
#define TINYAOT_PAIR_JOB_PAIR_STEP    60
#define TINYAOT_PAIR_JOB_PAIR_OUT     64
#define TINYAOT_PAIR_JOB_LINE         68
#define TINYAOT_PAIR_JOB_HIGH         72
#define TINYAOT_PAIR_JOB_BACK         76
#define TINYAOT_PAIR_JOB_WIDE         80

/* The deepest window (k_h * k_w * in_c) tinyaot_conv_pairs_dsp16 takes in its frame, which
 * holds a pair's inputs widened to int16, 4 bytes per input (deeper ones: a job's `wide`).
 * scripts/tinyaot/ops/conv_2d.py's DSP16_DEPTH is the same.
 */
#define TINYAOT_CONV_DSP16_DEPTH 128

/* struct dw_group of crt/src/dwconv_fast.c, its struct dw_cols k first (the staging loads
 * zp4 to words with one LDM, the chunk loop the three rows with another).
 */
#define TINYAOT_DW_GROUP_K_ZP4        0
#define TINYAOT_DW_GROUP_K_CH         4
#define TINYAOT_DW_GROUP_K_COLS       8
#define TINYAOT_DW_GROUP_K_JA         12
#define TINYAOT_DW_GROUP_K_JB         16
#define TINYAOT_DW_GROUP_K_WORDS      20
#define TINYAOT_DW_GROUP_ROWS         24
#define TINYAOT_DW_GROUP_RECORDS      36
#define TINYAOT_DW_GROUP_OUT          40
#define TINYAOT_DW_GROUP_N            44
#define TINYAOT_DW_GROUP_FN           48
#define TINYAOT_DW_GROUP_P            52
#define TINYAOT_DW_GROUP_CHUNKS       56
#define TINYAOT_DW_GROUP_CHUNK_RECORD 60

/* struct fc_job of crt/src/fully_connected_fast.c. */
#define TINYAOT_FC_JOB_X       0
#define TINYAOT_FC_JOB_DEPTH   4
#define TINYAOT_FC_JOB_WEIGHTS 8
#define TINYAOT_FC_JOB_TABLE   12
#define TINYAOT_FC_JOB_OUT     16
#define TINYAOT_FC_JOB_BLOCKS  20

#endif /* TINYAOT_ASM_LAYOUT_H_ */
