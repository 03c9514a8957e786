/**
 * @file sim.h
 * @brief The simulated machine, a hardware model: virtual time, generic timer
 *        peripherals (reached through the bus of sim_regs.h), an interrupt
 *        controller, the CPU's interrupt mask, and the controls tests use to
 *        steer them.
 *
 * It calls nothing of utim; it only borrows utim's clock-input description
 * (utim_clock_desc_t of driver.h) for its timers' inputs, so the board
 * describes each input once for the hardware and the instance. The sim board
 * (boards/sim) describes the timers it puts on the machine (sim_configure())
 * and attaches the driver's interrupt handler to their lines; the sim driver
 * (drivers/sim) reaches the registers through the bus (sim_regs.h); the sim
 * port masks interrupts with sim_irq_disable() and spins with
 * sim_cpu_relax().
 *
 * Everything is deterministic: time moves only when a test advances it, when
 * a register is accessed (each access costs sim_set_access_cost() ns), and
 * when the CPU busy-waits (sim_cpu_relax() costs sim_set_relax_step() ns).
 * Interrupts are delivered at the virtual time their event happens, between
 * two register accesses, unless interrupts are masked or an interrupt
 * handler is already running; then at the first moment that is no longer so.
 */
#ifndef UTIM_SIM_H
#define UTIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Shape (static hardware parameters) of one simulated timer. */
typedef struct sim_shape {
  uint8_t width;        /**< counter width, 8 to 64 bits */
  uint8_t down;         /**< 1: counts down */
  uint8_t ncc;          /**< compare registers (>= 1) */
  uint8_t shared_irq;   /**< 1: every event on line irq; 0: line irq + n for CC n, irq + ncc for
                           overflow */
  uint8_t ovf_irq;      /**< 1: the overflow flag can raise an interrupt */
  uint8_t writable;     /**< 1: SIM_REG_COUNT can be written */
  uint8_t capture_read; /**< 1: SIM_REG_COUNT reads 0; use SIM_REG_TASK_CAPTURE */
  uint8_t
      stoppable; /**< 1: SIM_CTRL_EN can be cleared (else the counter always runs once enabled) */
  uint8_t min_distance; /**< compare matches closer than this to the CC write are missed (>= 1) */
  int8_t chain_from;    /**< -1, or the timer whose overflows clock this one (clock class CHAIN) */
  uint8_t irq;          /**< first interrupt line */
  uint8_t nclocks;      /**< number of clock inputs */
  const utim_clock_desc_t *clocks; /**< clock inputs */
} sim_shape_t;

/**
 * @brief A sim_shape_t initializer: clock table @p clocks (an array) and the
 *        shape's facts as one comma-separated list, in the order width, down,
 *        ncc, shared_irq, ovf_irq, writable, capture_read, stoppable,
 *        min_distance, chain_from, irq. A board names each timer's facts once
 *        in a macro expanding to that list and hands it both to SIM_SHAPE()
 *        and to the sim driver's UTIM_SIM_DEFINE().
 */
#define SIM_SHAPE(clocks, facts) SIM_SHAPE_(clocks, facts)
/** @brief SIM_SHAPE() after the expansion of its fact list. */
#define SIM_SHAPE_(clocks_, width_, down_, ncc_, shared_, ovf_, writable_, capture_, stop_, md_,   \
                   chain_from_, irq_)                                                              \
  {                                                                                                \
    .width = (width_), .down = (down_), .ncc = (ncc_), .shared_irq = (shared_), .ovf_irq = (ovf_), \
    .writable = (writable_), .capture_read = (capture_), .stoppable = (stop_),                     \
    .min_distance = (md_), .chain_from = (chain_from_), .irq = (irq_),                             \
    .nclocks = (uint8_t)(sizeof(clocks_) / sizeof((clocks_)[0])), .clocks = (clocks_)              \
  }

/** @brief Interrupt handler attached to a line. */
typedef void (*sim_isr_t)(const void *arg);

/** @brief Number of interrupt lines of the simulated interrupt controller. */
#define SIM_IRQ_LINES 64u

/**
 * @brief Describe the simulated timers (done once by the board).
 * @param shapes array of @p n shapes; timer k is shapes[k]
 */
void sim_configure(const sim_shape_t *shapes, unsigned n);

/** @brief Attach @p fn(@p arg) to interrupt line @p line (done by the board). */
void sim_irq_attach(unsigned line, sim_isr_t fn, const void *arg);

/**
 * @brief Reset: time 0, every timer in its reset state (stopped, count 0,
 *        CC 0, no enables, no flags), default costs (access 10 ns, relax 10 ns),
 *        no injection, interrupts unmasked. Touches nothing outside the model.
 */
void sim_reset(void);

/** @brief Current virtual time in ns. */
uint64_t sim_now(void);

/** @brief Let @p ns of virtual time pass, delivering interrupts on the way. */
void sim_advance(uint64_t ns);

/** @brief Virtual time each register access costs (default 10 ns; 0 allowed). */
void sim_set_access_cost(uint32_t ns);

/** @brief The virtual time a register access costs now. */
uint32_t sim_access_cost(void);

/** @brief Virtual time each sim_cpu_relax() costs (default 10 ns; >= 1). */
void sim_set_relax_step(uint32_t ns);

/**
 * @brief Race injection: just before the register access number
 *        sim_accesses() + @p offset happens, advance time by @p ns
 *        (interrupts are delivered then, if not locked). One injection at a time;
 *        a new call replaces a pending one.
 */
void sim_inject(uint64_t offset, uint64_t ns);

/** @brief Whether an injection is still waiting for its access. */
bool sim_inject_pending(void);

/** @brief Register accesses made since sim_reset(). */
uint64_t sim_accesses(void);

/**
 * @brief Virtual time the CPU was busy since sim_reset(), in ns: the cost of
 *        every register access (interrupt handlers' included) and of every
 *        sim_cpu_relax() step. Time let pass by sim_advance() and race
 *        injections is not counted (the CPU sleeps or does something else).
 */
uint64_t sim_busy_ns(void);

/**
 * @name Devices: peripheral models beside the timers (e.g. the HTM's RTL)
 * @{
 */
/** @brief Devices the machine takes at most. */
#define SIM_MAX_DEVICES 4u

/**
 * @brief A peripheral model stepped in the machine's virtual time. Its
 *        registers are reached with sim_dev_read()/sim_dev_write(), which
 *        cost and count like a timer's register access.
 */
typedef struct sim_device {
  /** @brief The first virtual time after @p now at which it changes on its own (its next tick), or
   * UINT64_MAX. */
  uint64_t (*next)(void *ctx, uint64_t now);
  /** @brief Bring it to virtual time @p t (never earlier than the last call; every next() time is
   * passed in). */
  void (*advance)(void *ctx, uint64_t t);
  /** @brief Whether its interrupt output is asserted now. */
  bool (*irq)(void *ctx);
  /** @brief Read the 32-bit register at word offset @p reg (after advance() to now). */
  uint32_t (*read)(void *ctx, unsigned reg);
  /** @brief Write the 32-bit register at word offset @p reg (after advance() to now). */
  void (*write)(void *ctx, unsigned reg, uint32_t value);
  /** @brief Its interrupt line (sim_irq_attach() gives the line a handler). */
  unsigned line;
} sim_device_t;

/**
 * @brief Put device @p dev (state @p ctx) on the machine, as device number
 *        sim_device count so far; sim_reset() keeps devices (reset them
 *        through their own registers or context).
 * @return its number, or -1 when SIM_MAX_DEVICES are attached already
 */
int sim_device_attach(const sim_device_t *dev, void *ctx);

/** @brief Remove every device (their models are the caller's to free). */
void sim_device_detach_all(void);

/* A device's register accesses, sim_dev_read()/sim_dev_write(), are in
 * sim_regs.h with the timers' bus: what a driver may call. */
/** @} */

/**
 * @name The CPU
 * @{
 */
/**
 * @brief Mask interrupts (what setting PRIMASK is on a Cortex-M); nests.
 * @return the key to hand to sim_irq_restore()
 */
uint32_t sim_irq_disable(void);

/**
 * @brief Restore the mask the matching sim_irq_disable() found; interrupts
 *        that became due meanwhile are delivered once nothing masks them.
 * @param key the value the matching sim_irq_disable() returned
 */
void sim_irq_restore(uint32_t key);

/** @brief One busy-wait step of the CPU: sim_set_relax_step() ns of virtual
 *         time, counted as busy time. */
void sim_cpu_relax(void);

/** @brief Whether the CPU runs an interrupt handler now. */
bool sim_in_isr(void);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* UTIM_SIM_H */
