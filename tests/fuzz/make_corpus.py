#!/usr/bin/env python3
"""Write the hand-made inputs of the uAPI fuzz target (tests/fuzz/corpus/).

Each input is a readable program below, encoded as fuzz_ops.h describes: the
reproducers of defects found in the chain driver and in periodic re-arming,
and a few seeds that reach every operation. libFuzzer starts from them; the
test run replays them (fuzz_replay) and fuzzes from them (fuzz_uapi).

Usage: python3 tests/fuzz/make_corpus.py [--out DIR]   (default: tests/fuzz/corpus)
"""
import argparse
import os
import struct
import sys

# Opcodes and units: fuzz_ops.h.
OPS = {
    "set_abs": 0, "set_rel": 1, "set_periodic": 2, "clear": 3, "advance": 4,
    "critical": 5, "stop": 6, "start": 7, "write": 8, "mask": 9, "unmask": 10,
    "stall": 11, "ovf_cb": 12, "invalid": 13, "cb_action": 14, "reinit": 15,
}
CRITICAL_NS_UNIT = 50
STALL_NS_UNIT = 20
ACT = {"none": 0, "clear_self": 1, "rearm_self": 2, "clear_other": 3}

# Instances of the sim board, by index (boards/sim/board_sim.h).
INST = {"SIM_TIMER16": 0, "SIM_SYSTICK24": 1, "SIM_NRF32": 2, "SIM_MTIME64": 3,
        "SIM_TIMER8": 4, "SIM_CHAIN32": 5, "SIM_SOFT32": 6}
NS_PER_TICK_16MHZ = 62.5


def u(n, v):
    return struct.pack("<Q", v & ((1 << 64) - 1))[:n]


def encode(inst, freq_sel, access_ns, ops):
    out = bytes([INST[inst], freq_sel, access_ns])
    for op in ops:
        name, args = op[0], op[1:]
        out += bytes([OPS[name]])
        if name in ("set_abs", "set_rel"):
            out += u(1, args[0]) + u(4, args[1])
        elif name == "set_periodic":
            out += u(1, args[0]) + u(2, args[1])
        elif name in ("clear", "mask", "unmask", "ovf_cb", "invalid", "reinit"):
            out += u(1, args[0])
        elif name == "advance":
            ns = args[0]
            while ns > 0xFFFFFF:  # three bytes per advance
                out += u(3, 0xFFFFFF) + bytes([OPS["advance"]])
                ns -= 0xFFFFFF
            out += u(3, ns)
        elif name == "critical":
            out += u(2, args[0] // CRITICAL_NS_UNIT)
        elif name == "stall":
            out += u(1, args[0]) + u(2, args[1] // STALL_NS_UNIT)
        elif name == "write":
            out += u(4, args[0])
        elif name == "cb_action":
            out += u(1, args[0]) + u(1, ACT[args[1]]) + u(2, args[2])
        elif name in ("stop", "start"):
            pass
        else:
            raise ValueError(name)
    return out


def ticks_ns(ticks):
    """Virtual ns of `ticks` at 16 MHz."""
    return int(ticks * NS_PER_TICK_16MHZ)


def programs():
    p = {}
    # utim_set_periodic() at the minimum period (it used to never return).
    for inst, md in (("SIM_TIMER8", 3), ("SIM_SYSTICK24", 2), ("SIM_NRF32", 2),
                     ("SIM_SOFT32", 2), ("SIM_CHAIN32", 1), ("SIM_TIMER16", 1)):
        p["periodic_min_%s" % inst.lower()] = encode(
            inst, 0x00, 10, [("set_periodic", 0, md), ("advance", 200000)])
    for period, cost in ((4, 20), (5, 30), (6, 60)):
        p["periodic_timer8_%u_cost%u" % (period, cost)] = encode(
            "SIM_TIMER8", 0x00, cost % 32, [("set_periodic", 1, period), ("advance", 100000)])
    # Periodic masked for a while, interrupts held off across its matches.
    p["periodic_masked_held_off"] = encode("SIM_TIMER16", 0x00, 5, [
        ("set_periodic", 2, 40), ("mask", 0x04), ("advance", 50000),
        ("critical", 30000), ("unmask", 0x04), ("advance", 20000)])
    # Software carry: low-half matches serviced after the low half wrapped
    # (a compare two low periods ahead fired 65,520 ticks early; one three
    # periods ahead was lost until the 32-bit wrap).
    for target in (0x1FFF0, 0x2FFF0):
        ops = [("set_abs", 0, target)]
        t = 0
        for hi in range((target >> 16) + 1):
            match = ticks_ns((hi << 16) | (target & 0xFFFF))
            ops += [("advance", match - 500 - t), ("critical", 2000)]
            t = match + 1500
        ops += [("advance", 200000)]
        p["soft32_match_after_wrap_%x" % target] = encode("SIM_SOFT32", 0x00, 10, ops)
        p["chain32_match_after_wrap_%x" % target] = encode("SIM_CHAIN32", 0x00, 10, ops)
    # A stall at each register access of a short set_rel() on the software
    # carry (within the tolerance: under one low period).
    for k in range(0, 24, 3):
        p["soft32_stall_in_set_rel_%u" % k] = encode("SIM_SOFT32", 0x00, 10, [
            ("advance", ticks_ns(0xFFC0)), ("stall", k, 1300000), ("set_rel", 1, 0xFF),
            ("advance", 2000000)])
    # Two channels due at one tick, one completing on the high half.
    p["chain32_same_tick"] = encode("SIM_CHAIN32", 0x00, 10, [
        ("set_abs", 0, 0x30000), ("advance", ticks_ns(0x28000)), ("set_abs", 1, 0x8000),
        ("advance", 2000000)])
    # Counter written onto an armed compare value.
    p["soft32_write_onto_compare"] = encode("SIM_SOFT32", 0x00, 10, [
        ("stop",), ("set_abs", 1, 0x1234), ("write", 0x1234), ("start",), ("advance", 100000)])
    # Callbacks calling the API, invalid calls, re-initialisation.
    p["callbacks_call_the_api"] = encode("SIM_NRF32", 0x00, 3, [
        ("cb_action", 0, "rearm_self", 50), ("cb_action", 1, "clear_other", 0),
        ("set_rel", 0, 100), ("set_rel", 1, 100), ("set_periodic", 2, 30),
        ("cb_action", 2, "clear_self", 0), ("advance", 20000)])
    p["invalid_calls"] = encode("SIM_TIMER16", 0x00, 10,
                                [("invalid", k) for k in range(12)] + [("advance", 1000)])
    p["reinit_overflow"] = encode("SIM_TIMER8", 0x10, 7, [
        ("ovf_cb", 1), ("set_rel", 0, 200), ("advance", 100000), ("reinit", 0x03),
        ("start",), ("set_periodic", 1, 9), ("advance", 100000), ("ovf_cb", 0)])
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "corpus"),
                    help="directory to write the inputs to (default: %(default)s)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name, data in sorted(programs().items()):
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(data)
    print("%u inputs written to %s" % (len(programs()), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
