/*
 * Bare-metal test firmware: runs one generated tinyaot model on every input set that runner.py
 * baked into inputs.c and reports outputs, return codes, SysTick cycles and peak stack over
 * semihosting, one line each, for runner.py to parse:
 *
 *   info model=<name> arena=<bytes> inputs=<n> outputs=<n> sets=<n> stack_window=<bytes>
 *   out <set> <index> <hex bytes>
 *   ret <set> rc=<rc> ticks=<cycles> stack=<bytes>
 *   done
 *
 * Guard areas around the pinned arena (placed by the linker scripts) are filled with a pattern
 * before each invoke and checked after it; a changed byte ends the run with exit status 13
 * after one line per byte, its offset from the arena's start and its value:
 *
 *   guard <set> <offset> <byte>
 *
 * Built with -DMODEL_HEADER="\"kws.h\"" -DMODEL_PREFIX=kws so one source serves every model.
 *
 * Built with -DTINYAOT_PROFILE as well (the whole firmware, so the generated code calls the
 * runtime's profiling hook after each op), it also reports every op's SysTick cycles, and
 * once the cycles an empty op reports, the hook's own cost included in each op's figure:
 *
 *   prof_overhead ticks=<cycles>
 *   prof <set> <op index> <op name> ticks=<cycles>
 *
 * The printing happens inside the invoke but between two clock readings, so no op is charged
 * for it; the invoke's total ticks and peak stack do include it, so take those from a build
 * without TINYAOT_PROFILE.
 */

#include <stdint.h>
#include <string.h>

#if !defined(MODEL_HEADER) || !defined(MODEL_PREFIX)
#error "build with -DMODEL_HEADER=\"\\\"<name>.h\\\"\" -DMODEL_PREFIX=<name>"
#endif

#include MODEL_HEADER

#ifdef TINYAOT_PROFILE
#include <tinyaot/profile.h>
#endif

/* Two levels so that MODEL_PREFIX is expanded before it is pasted. */
#define HARNESS_CAT2(a, b) a##b
#define HARNESS_CAT(a, b)  HARNESS_CAT2(a, b)
#define MODEL(suffix)      HARNESS_CAT(MODEL_PREFIX, suffix)

/*
 * A stateful model's first invocation initialises its state, unless <name>_reset(), which only
 * such a model defines, has (README, "State"). TFLite Micro initialises its variables in
 * AllocateTensors, before its timed invokes; the harness resets before its clock starts, so that
 * no invoke is charged for it either.
 */
extern int MODEL(_reset)(uint8_t *state) __attribute__((weak));

/*
 * Exit statuses, decoded by runner.py; 12 (fault) comes from startup.c. Clear of 1, which is
 * what qemu itself exits with on its own errors.
 */
#define EXIT_INVOKE_FAILED 10
#define EXIT_BAD_INPUTS    11
#define EXIT_GUARD         13

/* Defined in startup.c (no shared header, to keep the harness to its few files). */
extern volatile uint32_t harness_systick_wraps;
extern uint32_t _ebss;
void harness_write(const char *text);
void harness_write_uint(uint64_t value);
void harness_write_int(int64_t value);
__attribute__((noreturn)) void harness_exit(int status);

/*
 * Defined by the linker scripts: guard areas before and after the model's pinned arena, which
 * ends at harness_arena_end. Arrays, so that the compiler assumes nothing about their sizes.
 */
extern uint8_t harness_guard_before[];
extern uint8_t harness_arena_end[];
extern uint8_t harness_guard_end[];

/* Defined in the inputs.c that runner.py generates. */
extern const uint32_t harness_num_sets;
extern const uint32_t harness_num_inputs;
extern const uint8_t *const harness_input_data[]; /* [set * harness_num_inputs + input] */
extern const uint32_t harness_input_size[];       /* same indexing */

#define SYST_CSR       (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR       (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR       (*(volatile uint32_t *)0xE000E018)
#define SCB_ICSR       (*(volatile uint32_t *)0xE000ED04)
#define ICSR_PENDSTSET (1u << 26)

/* ENABLE | TICKINT | CLKSOURCE=core clock: icount makes the core clock an instruction count. */
#define SYST_CSR_RUN 0x7u
#define SYST_RELOAD  0xFFFFFFu
#define SYST_PERIOD  (SYST_RELOAD + 1u)

/*
 * Stack painting bounds what the scan after each inference costs; a model that needs more
 * than this reports exactly this much, a lower bound (see RunResult.stack in runner.py).
 */
#define STACK_PAINT  0xA5A5A5A5u
#define STACK_WINDOW (1024u * 1024u)

static void cycles_init(void)
{
	SYST_CSR = 0;
	SYST_RVR = SYST_RELOAD;
	SYST_CVR = 0;
	harness_systick_wraps = 0;
	SYST_CSR = SYST_CSR_RUN;
}

/*
 * Monotonic 64-bit cycle count. Interrupts are masked while the pair (wraps, counter) is read;
 * if the counter wrapped but the SysTick interrupt has not been taken yet, the pending bit says
 * so and the wrap is added here, re-reading the counter so it belongs to the new period.
 * Not inlined so that its cost is the same at both ends of a measurement and calibrates away.
 */
__attribute__((noinline)) static uint64_t cycles_now(void)
{
	uint32_t primask;
	uint32_t wraps;
	uint32_t count;

	__asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
	wraps = harness_systick_wraps;
	count = SYST_CVR;
	if ((SCB_ICSR & ICSR_PENDSTSET) != 0u) {
		wraps++;
		count = SYST_CVR;
	}
	__asm__ volatile("msr primask, %0" : : "r"(primask) : "memory");

	return (uint64_t)wraps * SYST_PERIOD + (SYST_RELOAD - count);
}

static uintptr_t stack_pointer(void)
{
	uintptr_t sp;

	__asm__ volatile("mov %0, sp" : "=r"(sp));
	return sp;
}

/* Lowest address that may be painted: the end of .bss, or the window below the stack. */
static uint32_t *stack_floor(uintptr_t top)
{
	uintptr_t floor = ((uintptr_t)&_ebss + 3u) & ~(uintptr_t)3u;

	if (top - floor > STACK_WINDOW) {
		floor = top - STACK_WINDOW;
	}
	return (uint32_t *)floor;
}

/*
 * Bytes left unpainted below the sp stack_paint() reads: GCC may read it before the function
 * pushes its registers (at -O2 for the Cortex-M55 it pushes r4 and lr after the mov from sp, in
 * the loop's branch only), and painting those would overwrite the return address. No frame this
 * function gets is larger (at most r4-r11 and lr, 36 bytes); the model's frames grow down from
 * the caller's sp, above, so only an invoke using less than the gap would be over-reported.
 */
#define STACK_PAINT_GAP 64u

/*
 * Paints from the floor up to STACK_PAINT_GAP below this function's sp, all of which is free:
 * it lies below every live frame, and the model's frames will grow down into it from above.
 * Not inlined so that its frame is gone again before the model runs.
 */
__attribute__((noinline)) static void stack_paint(uint32_t *floor)
{
	volatile uint32_t *word = floor;
	volatile uint32_t *top =
		(volatile uint32_t *)((stack_pointer() - STACK_PAINT_GAP) & ~(uintptr_t)3u);

	while (word < top) {
		*word++ = STACK_PAINT;
	}
}

static uint32_t stack_used(const uint32_t *floor, uintptr_t top)
{
	const volatile uint32_t *word = floor;

	while ((uintptr_t)word < top && *word == STACK_PAINT) {
		word++;
	}
	return (uint32_t)(top - (uintptr_t)word);
}

static void write_hex_bytes(const uint8_t *bytes, size_t size)
{
	static const char harness_digits[] = "0123456789abcdef";
	/* Chunked so huge outputs need no big buffer; each flush is one semihosting call. */
	char chunk[257];
	size_t fill = 0;
	size_t i;

	for (i = 0; i < size; i++) {
		chunk[fill++] = harness_digits[bytes[i] >> 4];
		chunk[fill++] = harness_digits[bytes[i] & 0xFu];
		if (fill == sizeof(chunk) - 1u) {
			chunk[fill] = '\0';
			harness_write(chunk);
			fill = 0;
		}
	}
	chunk[fill] = '\0';
	harness_write(chunk);
}

static void write_field(const char *label, uint64_t value)
{
	harness_write(label);
	harness_write_uint(value);
}

/*
 * The bytes around the arena: [before, arena) below it (the linker's guard plus any alignment
 * padding) and [harness_arena_end, harness_guard_end) above it.
 */
struct guards {
	uint8_t *before;
	uint8_t *arena;
};

/* Position-dependent, so that a kernel storing one repeated value cannot go unnoticed. */
static uint8_t guard_pattern(uintptr_t address)
{
	return (uint8_t)(0x5Au ^ (address * 0x9Du) ^ (address >> 5));
}

static void guards_fill(const struct guards *g)
{
	uint8_t *p;

	for (p = g->before; p < g->arena; p++) {
		*p = guard_pattern((uintptr_t)p);
	}
	for (p = harness_arena_end; p < harness_guard_end; p++) {
		*p = guard_pattern((uintptr_t)p);
	}
}

/* Reports every guard byte that changed as "guard <set> <offset from the arena> <byte>". */
static int guards_check(const struct guards *g, uint32_t set)
{
	const volatile uint8_t *p;
	int touched = 0;

	for (p = g->before; p < harness_guard_end; p++) {
		if (p == g->arena) {
			p = harness_arena_end;
		}
		if (*p != guard_pattern((uintptr_t)p)) {
			write_field("guard ", set);
			harness_write(" ");
			harness_write_int((int64_t)((intptr_t)p - (intptr_t)g->arena));
			write_field(" ", *p);
			harness_write("\n");
			touched = 1;
		}
	}
	return touched;
}

#ifdef TINYAOT_PROFILE
/* The input set being run, for the report lines; -1 while calibrating, when nothing is printed. */
static int32_t profile_set = -1;
static uint32_t profile_calibration;

/*
 * The runtime subtracts two readings modulo 2^32, so truncating the 64-bit count is exact for
 * any op shorter than 2^32 cycles (over 1.3e9 instructions on either board).
 */
uint32_t tinyaot_profile_clock(void)
{
	return (uint32_t)cycles_now();
}

void tinyaot_profile_op(const char *model, int32_t index, const char *op, uint32_t cycles)
{
	(void)model;
	if (profile_set < 0) {
		profile_calibration = cycles;
		return;
	}
	write_field("prof ", (uint64_t)profile_set);
	write_field(" ", (uint64_t)index);
	harness_write(" ");
	harness_write(op);
	write_field(" ticks=", cycles);
	harness_write("\n");
}

/*
 * An op that does nothing, timed the way the generated code times its ops: between the clock
 * reading that ends one tinyaot_profile_step() and the one in the next, so what it reports is
 * the cost of the hook calls that every op's figure includes. The first step only starts the
 * pattern; the hook keeps the second's figure.
 */
static void profile_calibrate(const char *model)
{
	uint32_t t;

	profile_set = -1;
	t = tinyaot_profile_clock();
	t = tinyaot_profile_step(model, -1, "", t);
	(void)tinyaot_profile_step(model, -1, "", t);
	write_field("prof_overhead ticks=", profile_calibration);
	harness_write("\n");
}
#endif

/* The arena's place between the guards, or -1 when it is not there (e.g. in another section).
 * An output is always in the arena; an input read in place is not.
 */
static int guards_find(const struct tinyaot_model_info *info, struct guards *g)
{
	uint8_t *output = MODEL(_output_ptr)(NULL, 0);

	g->before = harness_guard_before;
	g->arena = harness_arena_end - info->arena_size;
	if (g->arena - harness_guard_before < harness_guard_end - harness_arena_end ||
	    output < g->arena || output >= harness_arena_end) {
		harness_write("error the pinned arena is not between the harness guards: a static "
			      "<name>_arena in .bss is what the linker scripts expect\n");
		return -1;
	}
	return 0;
}

static int check_inputs(const struct tinyaot_model_info *info)
{
	uint32_t set;
	int32_t i;

	if ((int32_t)harness_num_inputs != info->num_inputs) {
		write_field("error model has inputs=", (uint64_t)info->num_inputs);
		write_field(" but inputs.c has inputs=", harness_num_inputs);
		harness_write("\n");
		return -1;
	}
	for (set = 0; set < harness_num_sets; set++) {
		for (i = 0; i < info->num_inputs; i++) {
			uint32_t size = harness_input_size[set * harness_num_inputs + (uint32_t)i];

			if (size != info->inputs[i].size) {
				write_field("error set ", set);
				write_field(" input ", (uint64_t)i);
				write_field(" size ", size);
				write_field(" expected ", info->inputs[i].size);
				harness_write("\n");
				return -1;
			}
		}
	}
	return 0;
}

int main(void)
{
	const struct tinyaot_model_info *info = &MODEL(_info);
	uintptr_t top = stack_pointer();
	uint32_t *floor = stack_floor(top);
	struct guards guards;
	uint64_t overhead;
	uint64_t start;
	int failed = 0;
	uint32_t set;
	int32_t i;

	cycles_init();
	/* The cost of one cycles_now() call pair, subtracted so ticks cover the invoke only. */
	start = cycles_now();
	overhead = cycles_now() - start;

	harness_write("info model=");
	harness_write(info->name != NULL ? info->name : "?");
	write_field(" arena=", info->arena_size);
	write_field(" inputs=", (uint64_t)info->num_inputs);
	write_field(" outputs=", (uint64_t)info->num_outputs);
	write_field(" sets=", harness_num_sets);
	write_field(" stack_window=", top - (uintptr_t)floor);
	harness_write("\n");

	if (check_inputs(info) != 0) {
		return EXIT_BAD_INPUTS;
	}
	if (guards_find(info, &guards) != 0) {
		return EXIT_GUARD;
	}
#ifdef TINYAOT_PROFILE
	profile_calibrate(info->name);
#endif

	if (MODEL(_reset) != NULL && MODEL(_reset)(NULL) != 0) {
		return EXIT_INVOKE_FAILED;
	}
	for (set = 0; set < harness_num_sets; set++) {
		uint64_t ticks;
		uint32_t stack;
		int rc;

		for (i = 0; i < info->num_inputs; i++) {
			uint32_t index = set * harness_num_inputs + (uint32_t)i;

			memcpy(MODEL(_input_ptr)(NULL, (int)i), harness_input_data[index],
			       harness_input_size[index]);
		}

#ifdef TINYAOT_PROFILE
		profile_set = (int32_t)set;
#endif
		guards_fill(&guards);
		stack_paint(floor);
		start = cycles_now();
		rc = MODEL(_invoke)(NULL);
		ticks = cycles_now() - start;
		ticks = ticks > overhead ? ticks - overhead : 0u;
		/* Scan before printing: the printing helpers' own frames would count otherwise. */
		stack = stack_used(floor, top);

		for (i = 0; i < info->num_outputs; i++) {
			write_field("out ", set);
			write_field(" ", (uint64_t)i);
			harness_write(" ");
			write_hex_bytes(MODEL(_output_ptr)(NULL, (int)i), info->outputs[i].size);
			harness_write("\n");
		}
		write_field("ret ", set);
		harness_write(" rc=");
		harness_write_int(rc);
		write_field(" ticks=", ticks);
		write_field(" stack=", stack);
		harness_write("\n");
		if (rc != 0) {
			failed = 1;
		}
		if (guards_check(&guards, set) != 0) {
			harness_write("error the invoke wrote outside the arena\n");
			return EXIT_GUARD;
		}
	}
	harness_write("done\n");
	return failed ? EXIT_INVOKE_FAILED : 0;
}
