/*
 * qemu TCG plugin for the benchmark's estimated cycles (bench/cycles.py weighs its counts).
 *
 * It sorts every executed Thumb instruction into a class whose cost the Cortex-M3 and M4
 * technical reference manuals give (loads, multiplies, branches, LDM/STM registers, ...), or
 * that the Cortex-M55 adds (Helium vector instructions, low-overhead loops),
 * counts taken conditional branches apart, and snapshots all counters each time the
 * instruction at address `mark` runs (the harness's clock reading, around each invoke), so
 * the counts of an invoke are the difference of two snapshots. At exit it writes one line
 * per snapshot to the file `out`:
 *
 *     snap <class count>... taken=<n>
 *
 * Built by bench/cycles.py against the plugin ABI of qemu 7.2 (API version 1), whose few
 * functions it declares here: Debian ships no qemu-plugin.h.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the part of qemu 7.2's plugin API (include/qemu/qemu-plugin.h, version 1) used here */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS
};
enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64
};
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
/* ---- end of the API */

/* Keep in step with CLASSES in bench/cycles.py. */
enum insn_class {
	C_ALU,       /* data processing, shifts, extends, moves, saturation, bit fields: 1 */
	C_MUL,       /* MUL */
	C_MLA,       /* MLA, MLS */
	C_MULL,      /* SMULL, UMULL */
	C_MLAL,      /* SMLAL, UMLAL, UMAAL and the DSP long accumulates */
	C_DSP_MUL,   /* SMLAD, SMUAD, SMLABB, SMMLA, ... (DSP extension) */
	C_DIV,       /* SDIV, UDIV */
	C_LDST,      /* load or store of one register, not after another one */
	C_LDST_PIPE, /* load or store of one register right after one: pipelined */
	C_LDST_DUAL, /* LDRD, STRD */
	C_LDM,       /* LDM, STM, PUSH, POP: the instruction */
	C_LDM_REG,   /* ... one per register of the list */
	C_BRANCH,    /* B, BL, BX, BLX: always taken */
	C_BCOND,     /* B<cond>, CBZ, CBNZ: taken ones are also counted in `taken` */
	C_TABLE,     /* TBB, TBH */
	C_PC_WRITE,  /* an instruction other than a branch that writes the pc (POP {pc}, ...) */
	C_IT,        /* IT */
	C_OTHER,     /* system, hints, coprocessor, anything else */
	C_FP,        /* FPU: add, multiply, compare, convert, move, register transfers */
	C_FP_MAC,    /* FPU multiply-accumulates: VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, ... */
	C_FP_DIV,    /* VDIV, VSQRT */
	C_MVE,       /* Helium (MVE) vector data processing: VMLADAV, VADD, VQRDMULH, VCTP, ... */
	C_MVE_LDST,  /* Helium vector loads and stores: VLDRB, VSTRW, VLD2, gathers, ... */
	C_LOOP,      /* low-overhead loops: DLS, WLS, LE and their tail-predicated forms */
	C_COUNT
};

struct snapshot {
	uint64_t count[C_COUNT];
	uint64_t taken;
};

#define MAX_SNAPSHOTS 64

static uint64_t counts[C_COUNT];
static uint64_t taken;
static struct snapshot snapshots[MAX_SNAPSHOTS];
static unsigned num_snapshots;
static uint64_t mark = UINT64_MAX;
static char out_path[4096];

/* The fall-through address of the last executed block when it ended in B<cond>/CBZ/CBNZ. */
static uint64_t pending_fallthrough;
static bool pending;

struct tb_end {
	uint64_t start;
	uint64_t fallthrough;
	bool conditional;
};

static bool is_ldst_single(enum insn_class c)
{
	return c == C_LDST || c == C_LDST_PIPE;
}

static unsigned popcount16(uint32_t v)
{
	return (unsigned)__builtin_popcount(v & 0xFFFFu);
}

/* Class of a 16-bit Thumb instruction; regs gets the register count of LDM/STM/PUSH/POP. */
static enum insn_class classify16(uint32_t hw, unsigned *regs, bool *pc_write)
{
	if (hw < 0x4000u) {
		return C_ALU;
	}
	if (hw < 0x4400u) {
		return ((hw >> 6) & 0xFu) == 13u ? C_MUL : C_ALU;
	}
	if (hw < 0x4800u) {
		if ((hw & 0xFF00u) == 0x4700u) {
			return C_BRANCH; /* BX, BLX */
		}
		/* ADD or MOV with the pc as destination (DN:Rdn == 15); not CMP. */
		*pc_write = (hw & 0xFF00u) != 0x4500u && (((hw >> 4) & 8u) | (hw & 7u)) == 15u;
		return C_ALU;
	}
	if (hw < 0xA000u) {
		return C_LDST;
	}
	if (hw < 0xB000u) {
		return C_ALU;
	}
	if (hw < 0xC000u) {
		if ((hw & 0xF500u) == 0xB100u) {
			return C_BCOND;
		}
		if ((hw & 0xFE00u) == 0xB400u || (hw & 0xFE00u) == 0xBC00u) {
			*regs = popcount16(hw & 0xFFu) + ((hw >> 8) & 1u);
			*pc_write = (hw & 0xFF00u) == 0xBD00u;
			return C_LDM;
		}
		if ((hw & 0xFF00u) == 0xBF00u) {
			return (hw & 0xFu) != 0u ? C_IT : C_OTHER;
		}
		if ((hw & 0xFF00u) == 0xBE00u || (hw & 0xFFE0u) == 0xB660u) {
			return C_OTHER; /* BKPT, CPS */
		}
		return C_ALU; /* SP adjust, extends, REV */
	}
	if (hw < 0xD000u) {
		*regs = popcount16(hw & 0xFFu);
		return C_LDM;
	}
	if (hw < 0xE000u) {
		return (hw & 0x0E00u) == 0x0E00u ? C_OTHER : C_BCOND; /* UDF, SVC */
	}
	return C_BRANCH;
}

/*
 * Class of an FPU instruction (coprocessors 10 and 11); VLDR/VSTR are single loads and stores,
 * VLDM/VSTM/VPUSH/VPOP multiple ones of imm8 words.
 */
static enum insn_class classify_fp(uint32_t hw1, uint32_t hw2, unsigned *regs)
{
	if ((hw1 & 0xFF00u) == 0xEE00u) {
		/* opc1 is bits 7, 5 and 4 of the first halfword (bit 6 is a register bit). */
		uint32_t opc1 = (hw1 >> 4) & 0xBu;

		if ((hw2 & 0x10u) != 0u) {
			return C_FP; /* VMOV to or from a core register, VMRS, VMSR */
		}
		if (opc1 == 0u || opc1 == 1u || opc1 == 9u || opc1 == 10u) {
			return C_FP_MAC;
		}
		if (opc1 == 8u || (opc1 == 11u && (hw1 & 0xFu) == 1u && (hw2 & 0xC0u) == 0xC0u)) {
			return C_FP_DIV; /* VDIV, VSQRT */
		}
		return C_FP;
	}
	if ((hw1 & 0xFF20u) == 0xED00u) {
		return C_LDST; /* VLDR, VSTR */
	}
	if ((hw1 & 0xFFE0u) == 0xEC40u) {
		return C_FP; /* VMOV between two core registers and two singles or a double */
	}
	*regs = hw2 & 0xFFu;
	return C_LDM;
}

/*
 * The coprocessor and vector spaces (first halfword 111x 11xx). 0xEF and 0xFF, A-profile's
 * Advanced SIMD, are Helium's vector data processing; elsewhere coprocessors 10 and 11 are
 * the FPU (0xEC-0xEE; the Armv8 additions in 0xFC-0xFE stay 'other', as before) and 14 and 15
 * Helium, which reuses them: loads and stores where LDC/STC would be (bit 9 clear, and one of
 * P, U, W set: VLDRB, VSTRW, VLD2, gathers), data processing otherwise (VMLADAV, VQRDMULH,
 * and the two-lane VMOV in STC's unused P=U=W=0 slot). VDUP and the single-lane VMOV are
 * encoded as the FPU's register transfers and count as 'fp'. The Cortex-M55 has no other
 * coprocessor, and no FP16 code is built.
 */
static enum insn_class classify_coproc(uint32_t hw1, uint32_t hw2, unsigned *regs)
{
	if ((hw1 & 0xEF00u) == 0xEF00u) {
		return C_MVE;
	}
	if ((hw2 & 0x0E00u) == 0x0A00u) {
		return (hw1 & 0x1000u) == 0u ? classify_fp(hw1, hw2, regs) : C_OTHER;
	}
	if ((hw2 & 0x0E00u) != 0x0E00u) {
		return C_OTHER;
	}
	return (hw1 & 0x0200u) == 0u && (hw1 & 0x01A0u) != 0u ? C_MVE_LDST : C_MVE;
}

static enum insn_class classify32(uint32_t hw1, uint32_t hw2, unsigned *regs, bool *pc_write)
{
	uint32_t op1 = (hw1 >> 11) & 3u;

	if (op1 == 1u) {
		if ((hw1 & 0xFE40u) == 0xE800u) {
			*regs = popcount16(hw2);
			*pc_write = (hw1 & 0x10u) != 0u && (hw2 & 0x8000u) != 0u;
			return C_LDM;
		}
		if ((hw1 & 0xFE40u) == 0xE840u) {
			if ((hw1 & 0xFFF0u) == 0xE8D0u && (hw2 & 0xFFE0u) == 0xF000u) {
				return C_TABLE;
			}
			/* LDRD/STRD have P or W set; the exclusives have neither. */
			return (hw1 & 0x0120u) != 0u ? C_LDST_DUAL : C_LDST;
		}
		if ((hw1 & 0xEC00u) == 0xEC00u) {
			return classify_coproc(hw1, hw2, regs);
		}
		return (hw1 & 0xFE00u) == 0xEA00u ? C_ALU : C_OTHER;
	}
	if (op1 == 2u) {
		/*
		 * Armv8.1-M reuses BLX (immediate), undefined in M-profile, for the low-overhead
		 * loops: WLS, WLSTP, LE, LETP (second halfword 110x...1) and DLS, DLSTP, VCTP
		 * (111x).
		 */
		if ((hw1 & 0xFF80u) == 0xF000u && (hw2 & 0xD001u) == 0xC001u) {
			return hw2 == 0xE801u ? C_MVE : C_LOOP;
		}
		if ((hw2 & 0x8000u) == 0u) {
			return C_ALU;
		}
		if ((hw2 & 0xD000u) == 0x8000u) {
			return ((hw1 >> 7) & 7u) == 7u ? C_OTHER : C_BCOND; /* MSR, MRS, hints */
		}
		return (hw2 & 0x5000u) != 0u ? C_BRANCH : C_OTHER; /* B.W, BL */
	}
	/* op1 == 3 */
	if ((hw1 & 0xEC00u) == 0xEC00u) {
		return classify_coproc(hw1, hw2, regs);
	}
	if ((hw1 & 0xFE00u) == 0xF800u) {
		uint32_t load = hw1 & 0x10u;

		*pc_write = load != 0u && (hw1 & 0x60u) == 0x40u && (hw2 >> 12) == 15u;
		return C_LDST;
	}
	if ((hw1 & 0xFF00u) == 0xFA00u) {
		return C_ALU;
	}
	if ((hw1 & 0xFF80u) == 0xFB00u) {
		uint32_t op = (hw1 >> 4) & 7u;

		if (op == 0u && (hw2 & 0xF0u) == 0u) {
			return ((hw2 >> 12) & 0xFu) == 15u ? C_MUL : C_MLA;
		}
		if (op == 0u && (hw2 & 0xF0u) == 0x10u) {
			return C_MLA; /* MLS */
		}
		return C_DSP_MUL;
	}
	if ((hw1 & 0xFF80u) == 0xFB80u) {
		uint32_t op = (hw1 >> 4) & 7u;

		if (op == 0u || op == 2u) {
			return C_MULL;
		}
		if ((op == 1u || op == 3u) && (hw2 & 0xF0u) == 0xF0u) {
			return C_DIV;
		}
		return C_MLAL;
	}
	return C_OTHER;
}

static void on_mark(unsigned int vcpu_index, void *userdata)
{
	(void)vcpu_index;
	(void)userdata;
	if (num_snapshots < MAX_SNAPSHOTS) {
		memcpy(snapshots[num_snapshots].count, counts, sizeof(counts));
		snapshots[num_snapshots].taken = taken;
		num_snapshots++;
	}
}

static void on_tb(unsigned int vcpu_index, void *userdata)
{
	const struct tb_end *end = userdata;

	(void)vcpu_index;
	if (pending && end->start != pending_fallthrough) {
		taken++;
	}
	pending = end->conditional;
	pending_fallthrough = end->fallthrough;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	enum insn_class previous = C_OTHER;
	struct tb_end *end = calloc(1, sizeof(*end));
	size_t i;

	(void)id;
	if (end == NULL) {
		abort();
	}
	end->start = qemu_plugin_tb_vaddr(tb);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *bytes = qemu_plugin_insn_data(insn);
		size_t size = qemu_plugin_insn_size(insn);
		uint32_t hw1 = (uint32_t)bytes[0] | ((uint32_t)bytes[1] << 8);
		unsigned regs = 0;
		bool pc_write = false;
		enum insn_class c;

		if (size == 4) {
			uint32_t hw2 = (uint32_t)bytes[2] | ((uint32_t)bytes[3] << 8);

			c = classify32(hw1, hw2, &regs, &pc_write);
		} else {
			c = classify16(hw1, &regs, &pc_write);
		}
		if (c == C_LDST && is_ldst_single(previous)) {
			c = C_LDST_PIPE;
		}
		previous = c;
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &counts[c], 1);
		if (regs != 0u) {
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &counts[C_LDM_REG], regs);
		}
		if (pc_write) {
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &counts[C_PC_WRITE], 1);
		}
		if ((qemu_plugin_insn_vaddr(insn) | 1u) == (mark | 1u)) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		}
		if (i + 1 == n) {
			end->conditional = c == C_BCOND;
			end->fallthrough = qemu_plugin_insn_vaddr(insn) + size;
		}
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, end);
}

static void write_snapshots(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = fopen(out_path, "w");
	unsigned s;
	int c;

	(void)id;
	(void)userdata;
	if (f == NULL) {
		return;
	}
	for (s = 0; s < num_snapshots; s++) {
		fputs("snap", f);
		for (c = 0; c < C_COUNT; c++) {
			fprintf(f, " %" PRIu64, snapshots[s].count[c]);
		}
		fprintf(f, " taken=%" PRIu64 "\n", snapshots[s].taken);
	}
	fclose(f);
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "mark=", 5) == 0) {
			mark = strtoull(argv[i] + 5, NULL, 0);
		} else if (strncmp(argv[i], "out=", 4) == 0) {
			snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
		} else {
			return -1;
		}
	}
	if (out_path[0] == '\0' || mark == UINT64_MAX) {
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_snapshots, NULL);
	return 0;
}
