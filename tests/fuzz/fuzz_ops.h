// clang-format off
/**
 * @file fuzz_ops.h
 * @brief Encoding of the inputs of the uAPI fuzz target (fuzz_uapi.c), shared
 *        with tests/fuzz/make_corpus.py, which writes inputs from readable
 *        programs.
 *
 * An input: instance byte (index mod the board's count), frequency byte
 * (input (b >> 4) mod inputs, then the (b & 15)-th achievable frequency of
 * it, from the highest), access-cost byte (ns, mod FUZZ_MAX_ACCESS_NS), then
 * operations: an opcode byte (mod FUZZ_OPS) and its operands, little-endian,
 * missing bytes reading as 0:
 *
 * | opcode            | operands              | what |
 * |-------------------|-----------------------|------|
 * | FUZZ_SET_ABS      | ch(1) delta(4)        | utim_set_abs(ch, counter + delta) |
 * | FUZZ_SET_REL      | ch(1) ticks(4)        | utim_set_rel(ch, ticks & max) |
 * | FUZZ_SET_PERIODIC | ch(1) period(2)       | utim_set_periodic(ch, period clamped to min distance .. utim_max_period(); masked: to FUZZ_MASKED_MIN_NS at least) |
 * | FUZZ_CLEAR        | ch(1)                 | utim_clear(ch) |
 * | FUZZ_ADVANCE      | ns(3)                 | let ns of virtual time pass |
 * | FUZZ_CRITICAL     | units(2)              | interrupts off for units x FUZZ_CRITICAL_NS_UNIT ns |
 * | FUZZ_STOP         | -                     | utim_stop() |
 * | FUZZ_START        | -                     | utim_start() |
 * | FUZZ_WRITE        | value(4)              | utim_write(value & max) |
 * | FUZZ_MASK         | bits(1)               | mask channels (bits 0-6), overflow (bit 7); a periodic channel faster than FUZZ_MASKED_MIN_NS is cleared instead |
 * | FUZZ_UNMASK       | bits(1)               | unmask, the same bits |
 * | FUZZ_STALL        | k(1) units(2)         | the next operation stalls units x FUZZ_STALL_NS_UNIT ns before its k-th register access |
 * | FUZZ_OVF_CB       | on(1)                 | utim_set_overflow_cb() on (bit 0) or off |
 * | FUZZ_INVALID      | kind(1)               | one of the invalid calls (errors change nothing) |
 * | FUZZ_CB_ACTION    | ch(1) act(1) arg(2)   | what ch's next callback does (FUZZ_ACT_*) |
 * | FUZZ_REINIT       | freq(1)               | utim_init() at another frequency (as the header's byte) |
 */
#ifndef UTIM_FUZZ_OPS_H
#define UTIM_FUZZ_OPS_H
// clang-format on

/** @name Opcodes @{ */
#define FUZZ_SET_ABS      0u  /**< see the table */
#define FUZZ_SET_REL      1u  /**< see the table */
#define FUZZ_SET_PERIODIC 2u  /**< see the table */
#define FUZZ_CLEAR        3u  /**< see the table */
#define FUZZ_ADVANCE      4u  /**< see the table */
#define FUZZ_CRITICAL     5u  /**< see the table */
#define FUZZ_STOP         6u  /**< see the table */
#define FUZZ_START        7u  /**< see the table */
#define FUZZ_WRITE        8u  /**< see the table */
#define FUZZ_MASK         9u  /**< see the table */
#define FUZZ_UNMASK       10u /**< see the table */
#define FUZZ_STALL        11u /**< see the table */
#define FUZZ_OVF_CB       12u /**< see the table */
#define FUZZ_INVALID      13u /**< see the table */
#define FUZZ_CB_ACTION    14u /**< see the table */
#define FUZZ_REINIT       15u /**< see the table */
#define FUZZ_OPS          16u /**< number of opcodes */
/** @} */

/** @name Callback actions (FUZZ_CB_ACTION), taken once @{ */
#define FUZZ_ACT_NONE        0u /**< nothing */
#define FUZZ_ACT_CLEAR_SELF  1u /**< utim_clear() of its own channel */
#define FUZZ_ACT_REARM_SELF  2u /**< utim_set_rel(its channel, arg) */
#define FUZZ_ACT_CLEAR_OTHER 3u /**< utim_clear() of the next channel */
#define FUZZ_ACTS            4u /**< number of actions */
/** @} */

/**
 * @name Units and limits
 * A critical section or a stall stays under 3.3 ms: within one low period
 * (4.096 ms at 16 MHz) of the software-carry chain, its documented
 * interrupt-off tolerance (chain.h).
 * @{
 */
#define FUZZ_CRITICAL_NS_UNIT 50u        /**< ns per unit of FUZZ_CRITICAL (max 3.28 ms) */
#define FUZZ_STALL_NS_UNIT    20u        /**< ns per unit of FUZZ_STALL (max 1.31 ms) */
#define FUZZ_MAX_ACCESS_NS    32u        /**< register access cost: 0 .. 31 ns */
#define FUZZ_MAX_OPS          256u       /**< operations of one input at most */
#define FUZZ_MAX_CALLBACKS    20000u     /**< then periodic channels clear themselves */
#define FUZZ_MASKED_MIN_NS    100000u    /**< shortest period of a masked periodic channel */
#define FUZZ_END_MAX_NS       500000000u /**< the end waits at most this long for one-shots */
#define FUZZ_END_SLACK_NS     200000u    /**< and this much beyond their targets */
/** @} */

#endif /* UTIM_FUZZ_OPS_H */
