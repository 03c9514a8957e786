/**
 * @file board_native.h
 * @brief The `native` board: timers of a Linux host.
 *
 * Instances (index: platform name: what it is). On x86-64 the first is the
 * TSC, on aarch64 CNTVCT; other architectures have no CPU counter instance
 * and the others move up by one.
 * - 0: NATIVE_TSC (x86-64): 64-bit counter on `lfence; rdtsc`; one clock
 *      input at the TSC frequency (probed by native_board_init(), see
 *      native_tsc_info()), dividers 1..4096; no channels.
 * - 0: NATIVE_CNTVCT (aarch64): 64-bit counter on CNTVCT_EL0; one input at
 *      CNTFRQ_EL0, dividers 1..4096; no channels.
 * - 1: NATIVE_MONOTONIC, 2: NATIVE_MONOTONIC_RAW, 3: NATIVE_BOOTTIME:
 *      64-bit counters on clock_gettime() of that clock; one 1 GHz input
 *      (nanoseconds), dividers 1..1000 (1 GHz down to 1 MHz: 10 MHz,
 *      1 MHz ... are exact; below 1 MHz is refused: use NATIVE_ALARM);
 *      no channels; UTIM_CAP_EMULATED.
 * - 4: NATIVE_ALARM: 64-bit counter on CLOCK_MONOTONIC with 4 compare
 *      channels and an emulated overflow interrupt, writable, stoppable;
 *      one 1 GHz input (ns) with dividers 1000..1000000 (1 MHz down to
 *      1 kHz) where arming a kernel timer costs at most 1 us, else
 *      10000..1000000 (100 kHz down to 1 kHz): a tick is never shorter than
 *      what moving the next event costs, so a compare armed a few ticks
 *      ahead is still ahead when the interrupt thread sleeps towards it.
 *      native_board_init() measures it (native_irq_info()); a virtual
 *      machine, where re-programming the kernel's timer traps to the
 *      hypervisor, typically gets 100 kHz. Minimum compare distance 1 tick;
 *      UTIM_CAP_EMULATED. Its interrupts are taken by the board's interrupt
 *      thread, which the kernel's timer wakes at the exact nanosecond of the
 *      tick edge the next event is due at.
 *
 * No instance counts down, none is chained, none shares a line.
 */
#ifndef UTIM_BOARD_NATIVE_H
#define UTIM_BOARD_NATIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "utim_native_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief How the CPU counter's frequency was obtained. */
typedef enum native_tsc_source {
  NATIVE_TSC_NONE = 0,       /**< not probed, or no CPU counter on this architecture */
  NATIVE_TSC_CPUID_15 = 1,   /**< CPUID leaf 0x15 (crystal clock x TSC ratio), exact */
  NATIVE_TSC_CPUID_16 = 2,   /**< CPUID 0x15 ratio with the 0x16 base frequency (MHz), nominal */
  NATIVE_TSC_HYPERVISOR = 3, /**< hypervisor leaf 0x40000010 (kHz) */
  NATIVE_TSC_MEASURED = 4,   /**< measured against CLOCK_MONOTONIC_RAW, rounded to kHz */
  NATIVE_TSC_CNTFRQ = 5,     /**< aarch64 CNTFRQ_EL0 */
} native_tsc_source_t;

/** @brief What native_board_init() found out about the CPU counter. */
typedef struct native_tsc_info_s {
  uint64_t hz;                /**< counter frequency in Hz (0 when unknown) */
  native_tsc_source_t source; /**< how @c hz was obtained */
  /** @brief NATIVE_TSC's clock input is hz >> shift (only above 2^32 - 1 Hz, so it fits). */
  unsigned shift;
  bool invariant;  /**< CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in all states */
  bool constant;   /**< /proc/cpuinfo "constant_tsc": constant rate across P-states */
  bool nonstop;    /**< /proc/cpuinfo "nonstop_tsc": keeps counting in deep C-states */
  bool hypervisor; /**< running under a hypervisor (CPUID 1 ECX bit 31) */
  /**
   * @brief The measured rate in Hz (nearest), also taken when CPUID knows the
   *        frequency, as a check; utim_now() is calibrated with it.
   */
  uint64_t measured_hz;
  /** @brief Width in ns of the best clock bracket of the measurement (its uncertainty per end). */
  uint64_t measure_bracket_ns;
} native_tsc_info_t;

/** @brief How the interrupt thread runs (SCHED_FIFO and mlockall where permitted). */
typedef struct native_irq_info_s {
  /**
   * @brief The interrupt thread was started. A child of fork() starts one of
   *        its own (the forking thread is its only thread), not under
   *        ThreadSanitizer, which ends a forked child that starts a thread:
   *        there it is false in the child and its alarms do not fire.
   */
  bool running;
  int policy;     /**< its scheduling policy (SCHED_FIFO, or SCHED_OTHER after a fallback) */
  int priority;   /**< its static priority (0 for SCHED_OTHER) */
  int fifo_error; /**< 0, or the errno that refused SCHED_FIFO */
  bool mlocked;   /**< mlockall(MCL_CURRENT | MCL_FUTURE) succeeded (false in a child of fork()) */
  /**
   * @brief 0, or the errno mlockall() returned; ENOTSUP when it was not tried
   *        because the program runs under AddressSanitizer or ThreadSanitizer
   *        (their shadow memory is terabytes of reserved address space that
   *        must not be locked).
   */
  int mlock_error;
  /**
   * @brief Median cost in ns of arming a kernel timer 20 us ahead (a timerfd),
   *        what the interrupt thread pays to sleep towards a new deadline; probed at init.
   */
  uint64_t compare_write_ns;
  /** @brief Fastest frequency of NATIVE_ALARM: 1 MHz when compare_write_ns <= 1 us, else 100 kHz.
   */
  uint32_t alarm_max_hz;
  uint64_t wakeups;  /**< times the interrupt thread's sleep ended (deadline or raised line) */
  uint64_t spins;    /**< times it busy-waited the last stretch to an event */
  uint64_t spin_ns;  /**< its spin window (native_irq_set_spin()) */
  uint64_t services; /**< handler passes run by native_irq_service() from other threads */
} native_irq_info_t;

/** @brief Board-wide indices of the instances (see the file comment). */
enum {
#if UTIM_NATIVE_HAVE_CPU_COUNTER
  NATIVE_IDX_CPU,
#endif
  NATIVE_IDX_MONOTONIC,
  NATIVE_IDX_MONOTONIC_RAW,
  NATIVE_IDX_BOOTTIME,
  NATIVE_IDX_ALARM,
  NATIVE_INSTANCES /**< number of instances */
};

/** @brief Scheduling priority the interrupt thread asks for (SCHED_FIFO). */
#define NATIVE_IRQ_PRIORITY 80

/**
 * @brief Default spin window of the interrupt thread, ns: it sleeps on the
 *        kernel's timer until this long before an alarm event, then spins,
 *        so the handler runs within a microsecond of the event instead of a
 *        kernel wake-up later (tens of microseconds). Costs up to this much
 *        CPU time per event.
 */
#define NATIVE_IRQ_SPIN_NS 50000u
/** @brief Largest spin window native_irq_set_spin() accepts, ns. */
#define NATIVE_IRQ_SPIN_MAX_NS 10000000u

/**
 * @brief Probe the CPU counter's frequency and flags, route the alarms'
 *        interrupts and start the interrupt thread (SCHED_FIFO at
 *        NATIVE_IRQ_PRIORITY and mlockall() where permitted, else a normal
 *        thread; see native_irq_info()). Call once at program start before
 *        using a NATIVE_TSC/NATIVE_CNTVCT frequency or an alarm; calling
 *        again, from any thread, does nothing. Takes about 20 ms: the one
 *        probe of the CPU counter, which utim_now() shares (whichever runs
 *        first does it).
 */
void native_board_init(void);

/**
 * @brief The CPU counter's probe results: the one probe native_board_init()
 *        and utim_now() share (it runs on the first call of any of them).
 */
const native_tsc_info_t *native_tsc_info(void);

/** @brief A snapshot of the interrupt thread's state and counters. */
native_irq_info_t native_irq_info(void);

/**
 * @brief Where a callback's latency went: called from a compare callback
 *        (which runs on the interrupt thread), the CLOCK_MONOTONIC time in ns
 *        at which the thread's sleep ended at its deadline just before this
 *        handler pass; the kernel's share of the latency is that minus the
 *        expiry, utim's (port lock, handler, dispatch) the callback's start
 *        minus that. -1 when the pass did not follow a sleep that ended at
 *        its deadline (it followed a spin or a raised line) or when called
 *        from elsewhere.
 */
int64_t native_irq_deadline_wake_ns(void);

/**
 * @brief Set the interrupt thread's spin window (see NATIVE_IRQ_SPIN_NS);
 *        0 turns spinning off (pure kernel timer: least CPU, most latency),
 *        except for a wait shorter than arming the kernel's timer costs
 *        (native_irq_info_t::compare_write_ns, at most 50 us), which is
 *        spun: a sleep could not end sooner and would cost as much CPU.
 *        Clamped to NATIVE_IRQ_SPIN_MAX_NS. Takes effect at the next event.
 *        The thread spins at most one window (handler passes included)
 *        after each sleep: events that keep coming closer together than
 *        the window are then waited for with a kernel sleep, so the
 *        thread's CPU is not taken for good by spinning between them.
 */
void native_irq_set_spin(uint64_t ns);

/**
 * @brief Restrict the interrupt thread to CPU @p cpu, or let it run on any
 *        CPU again (@p cpu < 0). A real-time program pins it to the CPU of
 *        the thread it serves, so the kernel timer's interrupt, the wake-up
 *        and the handler all happen on that CPU and the handler preempts the
 *        thread instead of running beside it; or to a CPU of its own.
 * @retval 0 done
 * @retval -ESRCH the interrupt thread is not running (native_board_init())
 * @retval -EINVAL no such CPU
 * @return other negative errno values from pthread_setaffinity_np()
 */
int native_irq_pin(int cpu);

/**
 * @brief Take due timer interrupts now, in the calling thread: run the
 *        handler of every alarm with an event due (a lock-free check first),
 *        under the port lock, as the interrupt thread does when its sleep
 *        ends (utim_port_in_isr() is true in them, as on the interrupt
 *        thread). Harmless when nothing is due. For code that
 *        waits in a busy loop and wants the events of its wait delivered
 *        when the wait ends, not a kernel wake-up later (the test hooks).
 */
void native_irq_service(void);

/**
 * @brief Diagnostic: the thread id (gettid()) holding the port lock now, 0
 *        when it is free, -1 when the C library does not tell. Read without
 *        the lock, so already stale when it returns: for a watchdog's report
 *        of who keeps the lock.
 */
int native_port_lock_owner(void);

/**
 * @brief Diagnostic: how many times the port lock was found held by a
 *        thread that had ended (pthread_exit() or cancellation inside a
 *        utim call or callback) and was taken over (see port_native.c).
 */
uint32_t native_port_owner_died(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARD_NATIVE_H */
