#!/usr/bin/env python3
"""Write seed inputs of fuzz_os2 (tests/fuzz/fuzz_os2.c) to corpus_os2/.

An input: setup(1) start(1) pool-fill(1), then operations: opcode(1) slot(1)
and the operands of fuzz_os2.c's main loop. Each scenario is written for
every set-up (the set-up table's order), so the fuzzer starts from inputs
that reach the deep states on each instance: timers deleted while their
expiries wait (UTIM_OS2_DELETED_WAITING of them, then one more), freed
heap blocks with expiries waiting, a full timer-context queue, callbacks
that call the API, calls from interrupts.
"""
import os
import sys

N_SETUPS = 10
NEW, START, STOP, DELETE, DELAY, UNTIL, PASS, CTX, ACTION, ISR, REFUSED, ENDS, PROBE, RUN = range(14)


def op(code, slot, *operands):
    return bytes([code, slot] + list(operands))


def gone_full():
    b = b""
    for s in range(10):
        b += op(NEW, s, s % 2)  # own memory, pool
        b += op(START, s, 1, 0, 0, 0)
    b += op(PASS, 0, 6)  # 1.5 kernel ticks, the context not run
    for s in range(10):
        b += op(DELETE, s, s % 5)
    b += op(RUN, 0)
    for s in range(10):
        b += op(DELETE, s, 3)
    return b


def freed_waiting():
    b = op(NEW, 1, 2) + op(START, 1, 2, 0, 0, 0) + op(PASS, 0, 12)
    b += op(DELETE, 1, 3) + op(NEW, 1, 0) + op(START, 1, 1, 0, 0, 0) + op(PASS, 0, 5)
    b += op(DELETE, 1, 3) + op(RUN, 0) + op(DELAY, 0, 2)
    return b


def actions():
    b = b""
    for a in range(1, 6):
        s = a
        b += op(NEW, s, 1 | (2 if a % 2 else 0)) + op(START, s, a, a, 0x01 | (a << 1), (s + 1))
    b += op(DELAY, 0, 7) + op(DELAY, 0, 3)
    return b


def queue_full():
    return (op(NEW, 0, 2) + op(START, 0, 1, 0, 0, 0) + op(PASS, 0, 255) + op(CTX, 0, 3) +
            op(ENDS, 0) + op(DELAY, 0, 3) + op(STOP, 0) + op(DELETE, 0, 0))


def interrupts():
    b = op(NEW, 2, 1) + op(START, 2, 3, 0, 0, 0)
    for k in range(5):
        b += op(ISR, 2, k, 2, 0, 0)
    for k in range(6):
        b += op(PROBE, 2, k, 2, 3, 0, 4) + op(DELAY, 0, 1)
    for k in range(8):
        b += op(REFUSED, 2, k, 0x11, k, 0)
    b += op(UNTIL, 0, 3) + op(UNTIL, 0, 0) + op(UNTIL, 0, 0xF0)
    return b


def reuse():
    b = op(NEW, 0, 0) + op(START, 0, 1, 0, 0, 0) + op(PASS, 0, 4)
    b += op(NEW, 0, 6) + op(START, 0, 1, 0, 0, 0) + op(PASS, 0, 4)
    b += op(DELETE, 0, 2) + op(NEW, 0, 0) + op(START, 0, 2, 0, 0, 0) + op(DELAY, 0, 3)
    return b


def stop_deferred():
    # expiries waiting when their timer is stopped (running or not), started
    # again, or set up again: none of them runs
    b = op(NEW, 0, 0) + op(START, 0, 1, 0, 0, 0) + op(PASS, 0, 6) + op(STOP, 0) + op(RUN, 0)
    b += op(NEW, 2, 2) + op(START, 2, 1, 0, 0, 0) + op(PASS, 0, 6) + op(STOP, 2) + op(RUN, 0)
    b += op(START, 0, 1, 0, 0, 0) + op(PASS, 0, 6) + op(START, 0, 2, 0, 0, 0) + op(RUN, 0)
    b += op(START, 0, 1, 0, 0, 0) + op(PASS, 0, 6) + op(NEW, 0, 4) + op(RUN, 0)
    return b


SCENARIOS = {
    "stop_deferred": (stop_deferred, 0),
    "gone_full": (gone_full, 0),
    "freed_waiting": (freed_waiting, 0),
    "actions": (actions, 0),
    "queue_full": (queue_full, 0),
    "interrupts": (interrupts, 12),
    "reuse": (reuse, 16),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus_os2")
    os.makedirs(out, exist_ok=True)
    for name, (fn, fill) in SCENARIOS.items():
        for su in range(N_SETUPS):
            for start in (0x00, 0x55):  # time 0; near the tick count's wrap
                path = os.path.join(out, "seed_%s_%d_%02x" % (name, su, start))
                with open(path, "wb") as f:
                    f.write(bytes([su, start, fill]) + fn())


if __name__ == "__main__":
    main()
