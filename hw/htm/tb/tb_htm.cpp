// Cycle-level testbench of the HTM RTL (hw/htm/htm.v), on Verilator.
//
// Each configuration (tasks x width) is built twice, ARCH 0 (a counter per
// task) and ARCH 1 (deadlines and a shared comparator), and both run in
// lockstep with a reference model of the register map written from the
// specification in htm.v's header: every cycle, every model gets the same
// inputs, and the word on rdata (the addressed register, or with sel low a
// register picked at random, which has no side effect) and irq must agree.
//
// Directed cases check the model itself against values worked out by hand:
// reset values and the read-only words, a 64-bit time read across a carry of
// the low word, set-time while delays run, simultaneous expiries, clear and
// acknowledge in the cycle of an expiry and after it, delay 0 and reload,
// ids beyond the tasks, the interrupt enable. A seeded random phase
// (argv[1], default 1) then drives every register at random for 200,000
// cycles with ticks at least NTASKS + 1 cycles apart; a last phase ticks
// faster than ARCH 1 can walk its tasks and checks that it is then late,
// never early. Prints TAP lines and "N passed, N failed".
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "Vhtm_12x64_a0.h"
#include "Vhtm_12x64_a1.h"
#include "Vhtm_64x16_a0.h"
#include "Vhtm_64x16_a1.h"
#include "verilated.h"

namespace {

enum : unsigned {
  A_ID = 0x00,
  A_VERSION,
  A_CONFIG,
  A_CTRL,
  A_TIME_LO,
  A_TIME_HI,
  A_SET_LO,
  A_SET_HI,
  A_DELAY_LO,
  A_DELAY_HI,
  A_DELAY_ID,
  A_CLEAR_ID,
  A_WAKE0,
  A_WAKE1,
  A_ACTIVE0,
  A_ACTIVE1,
  A_COUNT
};

struct Inputs {
  bool tick = false;
  bool sel = false;
  bool we = false;
  unsigned addr = 0;
  uint32_t wdata = 0;
};

// The register map's behaviour, from the specification.
class Ref {
public:
  Ref(unsigned n, unsigned w, unsigned arch) : n_(n), w_(w), arch_(arch), left_(n, 0) {}

  uint64_t mask() const { return w_ == 64 ? ~0ull : (1ull << w_) - 1u; }
  uint64_t task_mask() const { return n_ == 64 ? ~0ull : (1ull << n_) - 1u; }

  uint32_t rdata(unsigned addr) const {
    uint64_t active = 0;
    for (unsigned i = 0; i < n_; i++)
      active |= (left_[i] != 0 ? 1ull : 0ull) << i;
    switch (addr) {
    case A_ID:
      return 0x48544d31u;
    case A_VERSION:
      return 0x00010000u;
    case A_CONFIG:
      return (arch_ << 16) | (w_ << 8) | n_;
    case A_CTRL:
      return irq_en_ ? 1u : 0u;
    case A_TIME_LO:
      return (uint32_t)time_;
    case A_TIME_HI:
      return hi_snap_;
    case A_DELAY_LO:
      return delay_lo_;
    case A_DELAY_HI:
      return delay_hi_;
    case A_WAKE0:
      return (uint32_t)wake_;
    case A_WAKE1:
      return (uint32_t)(wake_ >> 32);
    case A_ACTIVE0:
      return (uint32_t)active;
    case A_ACTIVE1:
      return (uint32_t)(active >> 32);
    default:
      return 0;
    }
  }
  bool irq() const { return irq_en_ && wake_ != 0; }

  void edge(const Inputs &in) {
    const bool wr = in.sel && in.we;
    const bool rd = in.sel && !in.we;
    const unsigned id = in.wdata & 63u;
    const bool load = wr && in.addr == A_DELAY_ID && id < n_;
    const bool clear = wr && in.addr == A_CLEAR_ID && id < n_;
    uint64_t delay = (((uint64_t)delay_hi_ << 32) | delay_lo_) & mask();
    if (delay == 0)
      delay = 1;
    uint64_t fire = 0;
    for (unsigned i = 0; i < n_; i++) {
      const bool mine = (load || clear) && id == i;
      if (in.tick && left_[i] == 1 && !mine)
        fire |= 1ull << i;
    }
    uint64_t ack = 0;
    if (wr && in.addr == A_WAKE0)
      ack = in.wdata;
    if (wr && in.addr == A_WAKE1)
      ack = (uint64_t)in.wdata << 32;
    const uint64_t clear_mask = clear ? 1ull << id : 0;
    if (rd && in.addr == A_TIME_LO)
      hi_snap_ = (uint32_t)(time_ >> 32);
    if (wr && in.addr == A_SET_HI) {
      time_ = (((uint64_t)in.wdata << 32) | set_lo_) & mask();
    } else if (in.tick) {
      time_ = (time_ + 1) & mask();
    }
    if (wr && in.addr == A_SET_LO)
      set_lo_ = in.wdata;
    if (wr && in.addr == A_DELAY_LO)
      delay_lo_ = in.wdata;
    if (wr && in.addr == A_DELAY_HI)
      delay_hi_ = in.wdata;
    if (wr && in.addr == A_CTRL)
      irq_en_ = (in.wdata & 1u) != 0;
    for (unsigned i = 0; i < n_; i++) {
      if (load && id == i)
        left_[i] = delay;
      else if (clear && id == i)
        left_[i] = 0;
      else if (in.tick && left_[i] != 0)
        left_[i]--;
    }
    wake_ = ((wake_ & ~ack & ~clear_mask) | fire) & task_mask();
  }

  uint64_t wake() const { return wake_; }

private:
  unsigned n_, w_, arch_;
  std::vector<uint64_t> left_;
  uint64_t time_ = 0;
  uint32_t hi_snap_ = 0, set_lo_ = 0, delay_lo_ = 0, delay_hi_ = 0;
  bool irq_en_ = false;
  uint64_t wake_ = 0;
};

unsigned g_passed = 0;
unsigned g_failed = 0;
unsigned g_num = 0;

bool check(bool ok, const std::string &what) {
  g_num++;
  if (ok) {
    g_passed++;
  } else {
    g_failed++;
  }
  std::printf("%s %u - %s\n", ok ? "ok" : "not ok", g_num, what.c_str());
  return ok;
}

uint64_t g_rng = 1;
uint64_t rnd() {
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A configuration: both architectures and the model, in lockstep.
template <class M0, class M1> class Bench {
public:
  Bench(const char *name, unsigned n, unsigned w)
      : name_(name), n_(n), w_(w), ref_(n, w, 0), ref1_(n, w, 1) {
    m0_.rst = 1;
    m1_.rst = 1;
    cycle(Inputs{});
    cycle(Inputs{});
    m0_.rst = 0;
    m1_.rst = 0;
    ref_ = Ref(n, w, 0);
    ref1_ = Ref(n, w, 1);
    mismatches_ = 0;
  }

  // One clock cycle with @p in; returns the word on rdata (equal in all, or counted).
  uint32_t cycle(const Inputs &in) {
    drive(m0_, in);
    drive(m1_, in);
    m0_.clk = 0;
    m1_.clk = 0;
    m0_.eval();
    m1_.eval();
    const uint32_t want = ref_.rdata(in.addr);
    const bool want_irq = ref_.irq();
    const uint32_t got0 = m0_.rdata;
    uint32_t got1 = m1_.rdata;
    // CONFIG differs in its ARCH bit, by design.
    if (in.addr == A_CONFIG)
      got1 = (got1 & ~(1u << 16)) | (want & (1u << 16));
    const bool bad1 = compare1_ && (got1 != want || m1_.irq != want_irq);
    if (m0_.rst == 0 && (got0 != want || m0_.irq != want_irq || bad1)) {
      if (mismatches_ < 5) {
        std::printf("# %s cycle %" PRIu64
                    ": addr 0x%02x: model 0x%08x irq %d, arch 0 0x%08x irq %d,"
                    " arch 1 0x%08x irq %d\n",
                    name_, cycles_, in.addr * 4u, want, want_irq, got0, m0_.irq, got1, m1_.irq);
      }
      mismatches_++;
    }
    m0_.clk = 1;
    m1_.clk = 1;
    m0_.eval();
    m1_.eval();
    ref_.edge(in);
    ref1_.edge(in);
    cycles_++;
    return want;
  }

  void write(unsigned addr, uint32_t v, bool tick = false) {
    Inputs in;
    in.sel = true;
    in.we = true;
    in.addr = addr;
    in.wdata = v;
    in.tick = tick;
    cycle(in);
  }
  uint32_t read(unsigned addr, bool tick = false) {
    Inputs in;
    in.sel = true;
    in.addr = addr;
    in.tick = tick;
    return cycle(in);
  }
  uint32_t peek(unsigned addr) { return ref_.rdata(addr); }
  // Idle cycles, then one with a tick: a tick period of @p period cycles.
  void tick(unsigned period) {
    for (unsigned i = 1; i < period; i++)
      cycle(Inputs{});
    Inputs in;
    in.tick = true;
    cycle(in);
  }
  void delay(unsigned id, uint64_t d, bool with_tick = false) {
    write(A_DELAY_LO, (uint32_t)d);
    write(A_DELAY_HI, (uint32_t)(d >> 32));
    write(A_DELAY_ID, id, with_tick);
  }
  unsigned period() const { return n_ + 1; }
  uint64_t wake() { return (uint64_t)peek(A_WAKE1) << 32 | peek(A_WAKE0); }
  uint64_t mismatches() const { return mismatches_; }
  std::string name(const std::string &what) const { return std::string(name_) + ": " + what; }

  void directed();
  void random(unsigned cycles);
  void late_never_early();

private:
  template <class M> static void drive(M &m, const Inputs &in) {
    m.tick = in.tick;
    m.sel = in.sel;
    m.we = in.we;
    m.addr = in.addr;
    m.wdata = in.wdata;
  }

  const char *name_;
  unsigned n_, w_;
  M0 m0_;
  M1 m1_;
  Ref ref_;
  Ref ref1_;
  uint64_t cycles_ = 0;
  uint64_t mismatches_ = 0;
  bool compare1_ = true; // ARCH 1 in the lockstep comparison

  // ARCH 1's word at @p addr between cycles (clock high: no edge, no side effect).
  uint32_t m1_rd(unsigned addr) {
    m1_.sel = 0;
    m1_.tick = 0;
    m1_.addr = addr;
    m1_.eval();
    return m1_.rdata;
  }
};

template <class M0, class M1> void Bench<M0, M1>::directed() {
  const unsigned p = period();
  check(read(A_ID) == 0x48544d31u && read(A_VERSION) == 0x00010000u &&
            (read(A_CONFIG) & 0xffffu) == ((w_ << 8) | n_),
        name("ID, VERSION and CONFIG (tasks, width)"));
  check(read(A_CTRL) == 0 && read(A_TIME_LO) == 0 && read(A_TIME_HI) == 0 && wake() == 0 &&
            peek(A_ACTIVE0) == 0 && peek(A_ACTIVE1) == 0,
        name("reset: interrupt off, time 0, no wake, no delay"));

  // Time: counts ticks; a 64-bit read across the carry of the low word.
  tick(p);
  tick(p);
  check(read(A_TIME_LO) == 2, name("the time counts ticks"));
  if (w_ > 32) {
    write(A_SET_LO, 0xfffffffeu);
    write(A_SET_HI, 0x00000007u);
    const uint32_t lo = read(A_TIME_LO);
    tick(p);
    tick(p); // low word wraps between the LO and the HI read
    const uint32_t hi = read(A_TIME_HI);
    check(lo == 0xfffffffeu && hi == 7u, name("TIME_HI gives the high word latched by TIME_LO"));
    const uint32_t lo2 = read(A_TIME_LO);
    check(lo2 == 0u && read(A_TIME_HI) == 8u, name("a read after the carry: 0x8_00000000"));
  } else {
    write(A_SET_LO, 0xfffeu);
    write(A_SET_HI, 0u);
    tick(p);
    tick(p);
    check(read(A_TIME_LO) == 0u, name("the time wraps at its width"));
  }

  // A delay of 3: its wake bit comes with the third tick, not before.
  write(A_WAKE0, ~0u);
  write(A_WAKE1, ~0u);
  delay(1, 3);
  check(peek(A_ACTIVE0) == 2u, name("a loaded delay is active"));
  tick(p);
  tick(p);
  const bool before = wake() == 0;
  tick(p);
  check(before && wake() == 2u && peek(A_ACTIVE0) == 0u,
        name("delay 3: wakes at the third tick exactly, then inactive"));
  write(A_CTRL, 1);
  check(peek(A_CTRL) == 1u && read(A_WAKE0) == 2u, name("interrupt enable"));
  write(A_WAKE0, 2u);
  check(wake() == 0u, name("acknowledge clears the wake bit"));

  // Set-time while delays run: the remaining ticks are kept.
  delay(0, 5);
  tick(p);
  tick(p);
  write(A_SET_LO, 1000u);
  write(A_SET_HI, 0u);
  tick(p);
  tick(p);
  const bool not_yet = wake() == 0;
  tick(p);
  check(not_yet && wake() == 1u && read(A_TIME_LO) == 1003u,
        name("set-time while a delay runs: it still ends after its 5 ticks"));
  write(A_WAKE0, ~0u);

  // Simultaneous expiries: the same tick sets both bits.
  const unsigned hi_id = n_ - 1u;
  delay(0, 2);
  delay(hi_id, 2);
  tick(p);
  tick(p);
  const uint64_t both = (1ull << hi_id) | 1ull;
  check(wake() == both, name("two delays ending at one tick wake together"));
  if (n_ > 32) {
    check(peek(A_WAKE1) == (uint32_t)(both >> 32), name("tasks beyond 31 in WAKE1"));
  }
  write(A_WAKE0, ~0u);
  write(A_WAKE1, ~0u);

  // Clear in the cycle of the expiring tick: no wake. Clear after: the bit goes.
  delay(2 % n_, 1);
  for (unsigned i = 1; i < p; i++)
    cycle(Inputs{});
  write(A_CLEAR_ID, 2 % n_, true);
  check(wake() == 0 && peek(A_ACTIVE0) == 0, name("clear in the cycle of the expiry: no wake"));
  delay(2 % n_, 1);
  tick(p);
  const bool woke = wake() == (1ull << (2 % n_));
  write(A_CLEAR_ID, 2 % n_);
  check(woke && wake() == 0, name("clear after the expiry clears the wake bit"));

  // Acknowledge in the cycle of a new expiry: the new wake stays.
  delay(0, 1);
  for (unsigned i = 1; i < p; i++)
    cycle(Inputs{});
  write(A_WAKE0, 1u, true);
  check(wake() == 1u, name("acknowledge in the cycle of an expiry: the wake stays"));
  write(A_WAKE0, 1u);

  // Delay 0 is 1; a reload replaces; a load in the cycle of a tick starts after it.
  delay(0, 0);
  tick(p);
  check(wake() == 1u, name("delay 0 ends at the next tick"));
  write(A_WAKE0, 1u);
  delay(0, 2);
  tick(p);
  delay(0, 3);
  tick(p);
  tick(p);
  check(wake() == 0, name("a reload replaces the pending delay"));
  tick(p);
  check(wake() == 1u, name("... and ends after its own ticks"));
  write(A_WAKE0, 1u);
  for (unsigned i = 1; i < p; i++)
    cycle(Inputs{});
  write(A_DELAY_LO, 1u);
  write(A_DELAY_HI, 0u);
  for (unsigned i = 1; i < p; i++)
    cycle(Inputs{});
  write(A_DELAY_ID, 0u, true); // the tick of this cycle does not count
  check(wake() == 0, name("a load in the cycle of a tick: that tick does not count"));
  tick(p);
  check(wake() == 1u, name("... the next one ends delay 1"));
  write(A_WAKE0, 1u);

  // Ids beyond the tasks are ignored.
  if (n_ < 64) {
    delay(n_, 1);
    tick(p);
    check(wake() == 0 && peek(A_ACTIVE0) == 0 && peek(A_ACTIVE1) == 0,
          name("a delay for an id beyond the tasks is ignored"));
  }
  write(A_CTRL, 0);
  check(mismatches() == 0, name("directed cases: both architectures equal the model every cycle"));
}

template <class M0, class M1> void Bench<M0, M1>::random(unsigned cycles) {
  const uint64_t before = mismatches();
  unsigned until_tick = period() + (unsigned)(rnd() % 8u);
  uint64_t wakes = 0;
  for (unsigned c = 0; c < cycles; c++) {
    Inputs in;
    in.addr = (unsigned)(rnd() % A_COUNT);
    if (--until_tick == 0) {
      in.tick = true;
      until_tick = period() + (unsigned)(rnd() % 8u);
    }
    const unsigned r = (unsigned)(rnd() % 100u);
    if (r < 30) {
      in.sel = true;
      in.we = (rnd() & 1u) != 0;
      const unsigned k = (unsigned)(rnd() % 10u);
      // Mostly short delays, some long; ids mostly valid.
      switch (k) {
      case 0:
        in.addr = A_DELAY_LO;
        in.wdata = (uint32_t)(rnd() % 24u);
        break;
      case 1:
        in.addr = A_DELAY_HI;
        in.wdata = (rnd() % 16u) == 0 ? (uint32_t)rnd() % 3u : 0u;
        break;
      case 2:
      case 3:
        in.addr = A_DELAY_ID;
        in.wdata = (uint32_t)(rnd() % (n_ + 2u));
        break;
      case 4:
        in.addr = A_CLEAR_ID;
        in.wdata = (uint32_t)(rnd() % (n_ + 2u));
        break;
      case 5:
        in.addr = (rnd() & 1u) ? A_WAKE0 : A_WAKE1;
        in.wdata = (uint32_t)rnd();
        break;
      case 6:
        in.addr = (rnd() & 1u) ? A_SET_LO : A_SET_HI;
        in.wdata = (uint32_t)rnd();
        break;
      case 7:
        in.addr = A_CTRL;
        in.wdata = (uint32_t)rnd();
        break;
      default: // any register, read or write (delays: within the documented range)
        in.wdata = (uint32_t)rnd();
        if (in.addr == A_DELAY_LO || in.addr == A_DELAY_HI)
          in.we = false;
        break;
      }
      in.we = k <= 7u ? true : (in.we && in.addr != A_DELAY_LO && in.addr != A_DELAY_HI);
    }
    cycle(in);
    wakes += __builtin_popcountll(wake());
  }
  check(mismatches() == before && wakes > 0,
        name("random registers for " + std::to_string(cycles) +
             " cycles: both architectures equal the model every cycle"));
}

template <class M0, class M1> void Bench<M0, M1>::late_never_early() {
  // Ticks every other cycle: ARCH 0 and the model stay exact, ARCH 1 cannot
  // walk its tasks between ticks and wakes late; it must never wake early.
  // Compared: the cycle each task's wake bit rises (no acknowledges meanwhile).
  write(A_WAKE0, ~0u);
  write(A_WAKE1, ~0u);
  compare1_ = false;
  std::vector<long> ref_at(n_, -1), opt_at(n_, -1);
  for (unsigned i = 0; i < n_; i++)
    delay(i, 1 + (i * 7u) % 23u);
  for (long c = 0; c < 4000; c++) {
    Inputs in;
    in.tick = (c & 1) != 0;
    in.addr = A_WAKE0;
    cycle(in);
    const uint64_t rw = wake();
    const uint64_t ow = (uint64_t)m1_rd(A_WAKE1) << 32 | m1_rd(A_WAKE0);
    for (unsigned i = 0; i < n_; i++) {
      if (ref_at[i] < 0 && ((rw >> i) & 1u))
        ref_at[i] = c;
      if (opt_at[i] < 0 && ((ow >> i) & 1u))
        opt_at[i] = c;
    }
  }
  bool ok = true;
  long worst = 0;
  for (unsigned i = 0; i < n_; i++) {
    if (!(ref_at[i] >= 0 && opt_at[i] >= ref_at[i])) {
      std::printf("# task %u: model wakes at cycle %ld, ARCH 1 at %ld\n", i, ref_at[i], opt_at[i]);
    }
    ok = ok && ref_at[i] >= 0 && opt_at[i] >= ref_at[i];
    worst = opt_at[i] - ref_at[i] > worst ? opt_at[i] - ref_at[i] : worst;
  }
  check(ok && mismatches() == 0,
        name("ticks faster than ARCH 1 walks its tasks: ARCH 0 exact, ARCH 1 late (at most " +
             std::to_string(worst) + " cycles), never early, none lost"));
}

} // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  if (argc > 1)
    g_rng = std::strtoull(argv[1], nullptr, 0);
  std::printf("TAP version 13\n# seed %" PRIu64 "\n", g_rng);
  {
    Bench<Vhtm_12x64_a0, Vhtm_12x64_a1> b("12 tasks x 64 bits", 12, 64);
    b.directed();
    b.random(200000);
  }
  {
    Bench<Vhtm_64x16_a0, Vhtm_64x16_a1> b("64 tasks x 16 bits", 64, 16);
    b.directed();
    b.random(200000);
  }
  {
    Bench<Vhtm_12x64_a0, Vhtm_12x64_a1> b("12 tasks x 64 bits, fast ticks", 12, 64);
    b.late_never_early();
  }
  std::printf("1..%u\n%u passed, %u failed\n", g_num, g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
