#!/usr/bin/env python3
"""Write the seed inputs of the time manager's fuzz target (fuzz_tm.c) to
tests/fuzz/corpus_tm: one program per sim instance, mode and tick class.

Encoding (fuzz_tm.c): header instance(1) freq(1) mode(1) channel(1) tick(2)
access-cost(1), then opcode(1) % 13 and its operands, little-endian."""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus_tm')


def start(t, kind, mag, mant, pm=0):
    """kind: bits 0-1 relative / absolute ahead / absolute past, bit 2 periodic."""
    return bytes([0, t, kind, mag]) + mant.to_bytes(5, 'little') + pm.to_bytes(3, 'little')


def stop(t): return bytes([2, t])
def adv(x): return bytes([3]) + x.to_bytes(2, 'little')
def longadv(b): return bytes([4, b])
def crit(x): return bytes([5]) + x.to_bytes(2, 'little')
def stall(k, x): return bytes([6, k]) + x.to_bytes(2, 'little')
def settime(v): return bytes([7]) + v.to_bytes(8, 'little')
def query(t): return bytes([8, t])
def act(t, a, arg): return bytes([9, t, a]) + arg.to_bytes(5, 'little')
def reinit(sub): return bytes([10, sub])
def invalid(k, x): return bytes([11, k]) + x.to_bytes(8, 'little')
def now(): return bytes([12])


def main():
    os.makedirs(OUT, exist_ok=True)
    for inst in range(7):
        for mode in range(3):
            for tick in (0x0010, 0x8040):
                h = bytes([inst, 0, mode, 0]) + tick.to_bytes(2, 'little') + bytes([10])
                p = start(0, 0, 12, 1000) + start(1, 4, 10, 500, (10 | (300 << 5))) + start(2, 2, 8, 77)
                p += act(1, 3, 200) + act(0, 4, 0x12345) + query(1) + adv(0x4000) + stop(2)
                p += stall(5, 0x4000) + start(3, 1, 16, 40000) + crit(0x8000) + settime(1 << 40)
                p += query(3) + longadv(20) + invalid(2, 12345) + invalid(0, 1) + reinit(2)
                p += start(4, 0, 20, 99999) + act(4, 7, 9) + longadv(24) + now() + invalid(8, 0)
                p += act(5, 6, 0) + start(5, 0, 4, 3) + adv(0xffff) + invalid(3, 5) + reinit(1)
                with open(os.path.join(OUT, f'seed_{inst}_{mode}_{tick:04x}'), 'wb') as f:
                    f.write(h + p)


if __name__ == '__main__':
    main()
