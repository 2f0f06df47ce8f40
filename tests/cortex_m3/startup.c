/*
 * Minimal Cortex-M3/M4/M55 startup for the qemu test harness (lm3s6965evb, mps2-an385,
 * mps2-an386, mps3-an547).
 *
 * It owns the vector table, the C runtime set-up (copy .data, zero .bss), the SysTick wrap
 * counter that main.c builds its 64-bit cycle clock on, and the semihosting primitives.
 * Faults print what happened and leave qemu with a non-zero status, so a crashing model is
 * reported at once instead of hanging until the runner's timeout.
 */

#include <stdint.h>

/* Exit status when a fault handler ends the run; main.c uses 10 and 11 for its own failures. */
#define HARNESS_EXIT_FAULT 12

/* Symbols defined by the linker scripts. */
extern uint32_t _sidata;
extern uint32_t _sdata;
extern uint32_t _edata;
extern uint32_t _sbss;
extern uint32_t _ebss;
extern uint32_t _estack;

int main(void);

/* Written by the SysTick handler; main.c reads it (with interrupts masked) in cycles_now(). */
volatile uint32_t harness_systick_wraps;

#define SEMIHOSTING_SYS_WRITE0        0x04
#define SEMIHOSTING_SYS_EXIT          0x18
#define SEMIHOSTING_SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT  0x20026

#define SCB_CFSR  (*(volatile uint32_t *)0xE000ED28)
#define SCB_HFSR  (*(volatile uint32_t *)0xE000ED2C)
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34)
#define SCB_BFAR  (*(volatile uint32_t *)0xE000ED38)
#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88)

static uint32_t semihosting_call(uint32_t op, const void *arg)
{
	/*
	 * The register binding makes the operation land in r0 and the argument in r1 as the
	 * semihosting ABI requires; "memory" because the host reads (and may write) guest memory.
	 */
	register uint32_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;

	__asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

void harness_write(const char *text)
{
	(void)semihosting_call(SEMIHOSTING_SYS_WRITE0, text);
}

/*
 * Number formatting lives here rather than in main.c because the fault handler needs it too;
 * printf would pull in most of newlib for a handful of numbers.
 */
void harness_write_hex32(uint32_t value)
{
	static const char harness_digits[] = "0123456789abcdef";
	char text[9];
	int i;

	for (i = 7; i >= 0; i--) {
		text[i] = harness_digits[value & 0xFu];
		value >>= 4;
	}
	text[8] = '\0';
	harness_write(text);
}

void harness_write_uint(uint64_t value)
{
	char text[21];
	int i = 20;

	text[i] = '\0';
	do {
		text[--i] = (char)('0' + (int)(value % 10u));
		value /= 10u;
	} while (value != 0u);
	harness_write(&text[i]);
}

void harness_write_int(int64_t value)
{
	if (value < 0) {
		harness_write("-");
		/* Negate in unsigned arithmetic so INT64_MIN does not overflow. */
		harness_write_uint(0u - (uint64_t)value);
	} else {
		harness_write_uint((uint64_t)value);
	}
}

__attribute__((noreturn)) void harness_exit(int status)
{
	if (status == 0) {
		/* Plain SYS_EXIT: on AArch32 the reason code itself is the argument. */
		(void)semihosting_call(SEMIHOSTING_SYS_EXIT,
				       (const void *)ADP_STOPPED_APPLICATION_EXIT);
	} else {
		/*
		 * A32/T32 SYS_EXIT cannot carry a status, so use SYS_EXIT_EXTENDED (semihosting
		 * v2, supported by qemu) whose parameter block does.
		 */
		static uint32_t block[2];

		block[0] = ADP_STOPPED_APPLICATION_EXIT;
		block[1] = (uint32_t)status;
		(void)semihosting_call(SEMIHOSTING_SYS_EXIT_EXTENDED, block);
	}
	/* Only reached without a semihosting host; spin so nothing runs off the end. */
	for (;;) {
	}
}

void Reset_Handler(void)
{
	const uint32_t *src = &_sidata;
	uint32_t *dst;

#if defined(__ARM_FP)
	/*
	 * Hard-float firmware (the Cortex-M4 and M55 boards): the FPU resets with its coprocessors
	 * CP10 and CP11 denied, so the first floating-point instruction would fault; on the M55
	 * they also gate Helium (MVE), vector instructions included. Full access to both, and the
	 * barriers make it hold for the next instruction.
	 */
	SCB_CPACR |= 0xFu << 20;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
	for (dst = &_sdata; dst < &_edata;) {
		*dst++ = *src++;
	}
	for (dst = &_sbss; dst < &_ebss;) {
		*dst++ = 0;
	}

	harness_exit(main());
}

void SysTick_Handler(void)
{
	harness_systick_wraps++;
}

/*
 * Called from Default_Handler with the exception stack frame, so the faulting pc can be printed
 * (look it up with arm-none-eabi-addr2line -e <name>.elf <pc>).
 */
__attribute__((used, noreturn)) void harness_fault_report(const uint32_t *frame,
							  uint32_t exc_return)
{
	uint32_t ipsr;

	__asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
	harness_write("fault exception=");
	harness_write_uint(ipsr & 0x1FFu);
	harness_write(" pc=0x");
	harness_write_hex32(frame[6]);
	harness_write(" lr=0x");
	harness_write_hex32(frame[5]);
	harness_write(" exc_return=0x");
	harness_write_hex32(exc_return);
	harness_write(" cfsr=0x");
	harness_write_hex32(SCB_CFSR);
	harness_write(" hfsr=0x");
	harness_write_hex32(SCB_HFSR);
	harness_write(" mmfar=0x");
	harness_write_hex32(SCB_MMFAR);
	harness_write(" bfar=0x");
	harness_write_hex32(SCB_BFAR);
	harness_write("\n");
	harness_exit(HARNESS_EXIT_FAULT);
}

/*
 * Naked so that no prologue moves sp before the stacked frame is located; bit 2 of EXC_RETURN
 * says which stack the hardware pushed it on.
 */
__attribute__((naked)) void Default_Handler(void)
{
	__asm__ volatile("tst lr, #4\n\t"
			 "ite eq\n\t"
			 "mrseq r0, msp\n\t"
			 "mrsne r0, psp\n\t"
			 "mov r1, lr\n\t"
			 "b harness_fault_report\n\t");
}

typedef void (*vector_t)(void);

/*
 * 16 system exceptions plus 48 external interrupts: enough for both boards. No interrupt is
 * enabled in the NVIC, so every entry but reset and SysTick is only there to report a fault.
 */
__attribute__((section(".isr_vector"), used)) const vector_t harness_vectors[16 + 48] = {
	[0] = (vector_t)(uintptr_t)&_estack,
	[1] = Reset_Handler,
	[2] = Default_Handler,  /* NMI */
	[3] = Default_Handler,  /* HardFault */
	[4] = Default_Handler,  /* MemManage */
	[5] = Default_Handler,  /* BusFault */
	[6] = Default_Handler,  /* UsageFault */
	[11] = Default_Handler, /* SVCall */
	[12] = Default_Handler, /* DebugMonitor */
	[14] = Default_Handler, /* PendSV */
	[15] = SysTick_Handler,
	[16] = Default_Handler,
	[17] = Default_Handler,
	[18] = Default_Handler,
	[19] = Default_Handler,
	[20] = Default_Handler,
	[21] = Default_Handler,
	[22] = Default_Handler,
	[23] = Default_Handler,
	[24] = Default_Handler,
	[25] = Default_Handler,
	[26] = Default_Handler,
	[27] = Default_Handler,
	[28] = Default_Handler,
	[29] = Default_Handler,
	[30] = Default_Handler,
	[31] = Default_Handler,
	[32] = Default_Handler,
	[33] = Default_Handler,
	[34] = Default_Handler,
	[35] = Default_Handler,
	[36] = Default_Handler,
	[37] = Default_Handler,
	[38] = Default_Handler,
	[39] = Default_Handler,
	[40] = Default_Handler,
	[41] = Default_Handler,
	[42] = Default_Handler,
	[43] = Default_Handler,
	[44] = Default_Handler,
	[45] = Default_Handler,
	[46] = Default_Handler,
	[47] = Default_Handler,
	[48] = Default_Handler,
	[49] = Default_Handler,
	[50] = Default_Handler,
	[51] = Default_Handler,
	[52] = Default_Handler,
	[53] = Default_Handler,
	[54] = Default_Handler,
	[55] = Default_Handler,
	[56] = Default_Handler,
	[57] = Default_Handler,
	[58] = Default_Handler,
	[59] = Default_Handler,
	[60] = Default_Handler,
	[61] = Default_Handler,
	[62] = Default_Handler,
	[63] = Default_Handler,
};
