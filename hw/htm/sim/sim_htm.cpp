// The HTM RTL as a device of the sim machine (see sim_htm.h).
#include "sim_htm.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "Vhtm_sim_a0.h"
#include "Vhtm_sim_a1.h"
#include "sim.h"

namespace {

// One model of either architecture behind one interface.
class Model {
public:
  virtual ~Model() = default;
  // One clock cycle with these inputs; returns rdata as it was before the edge.
  virtual uint32_t cycle(bool tick, bool sel, bool we, unsigned addr, uint32_t wdata) = 0;
  virtual bool irq() = 0;
  virtual void reset() = 0;
};

template <class V> class ModelOf : public Model {
public:
  ModelOf() { reset(); }
  uint32_t cycle(bool tick, bool sel, bool we, unsigned addr, uint32_t wdata) override {
    v_.tick = tick;
    v_.sel = sel;
    v_.we = we;
    v_.addr = addr & 63u;
    v_.wdata = wdata;
    v_.clk = 0;
    v_.eval();
    const uint32_t rd = v_.rdata;
    v_.clk = 1;
    v_.eval();
    v_.sel = 0;
    v_.tick = 0;
    return rd;
  }
  bool irq() override {
    v_.clk = 1;
    v_.eval();
    return v_.irq != 0;
  }
  void reset() override {
    v_.rst = 1;
    cycle(false, false, false, 0, 0);
    cycle(false, false, false, 0, 0);
    v_.rst = 0;
  }

private:
  V v_;
};

struct Htm {
  std::unique_ptr<Model> model;
  uint64_t t0 = 0;       // virtual time of grid edge e0
  uint64_t e0 = 0;       // the edge at t0: 0 from the start, the edges run when
                         // virtual time went back (sim_reset()), so the block's
                         // clock runs on from where it was
  uint64_t last_t = 0;   // the latest virtual time seen
  uint64_t cycle_ns = 0; // ns between grid clock edges
  unsigned per_tick = 0; // grid edges per tick
  uint64_t edges = 0;    // grid edges run so far
  uint64_t cycles = 0;   // all clock cycles (grid and bus)
  sim_device_t dev{};
  // When to stop the machine: the tick each task's delay ends at, as the
  // register map defines it (0: none), kept from the bus writes. Only a
  // hint for the machine (where a wake may come); the RTL decides the wake
  // bits, and a wrong hint would show as a late wake in htm_cosim.
  uint64_t due[SIM_HTM_TASKS] = {};
  uint32_t delay_lo = 0;
  uint32_t delay_hi = 0;
};

std::vector<std::unique_ptr<Htm>> g_htm;

} // namespace

// Every step of a model goes through these two (named for callgrind: a
// benchmark toggles collection off inside them, so that the instructions it
// counts are the CPU side's, not the hardware model's).
extern "C" __attribute__((noinline)) uint32_t
sim_htm_model_cycle(void *model, bool tick, bool sel, bool we, unsigned addr, uint32_t wdata) {
  return static_cast<Model *>(model)->cycle(tick, sel, we, addr, wdata);
}

// Grid edges from+1 .. to of a model, a tick on every per_tick-th one.
extern "C" __attribute__((noinline)) void sim_htm_model_run(void *model, uint64_t from, uint64_t to,
                                                            unsigned per_tick) {
  for (uint64_t e = from + 1u; e <= to; e++) {
    (void)static_cast<Model *>(model)->cycle(e % per_tick == 0u, false, false, 0, 0);
  }
}

extern "C" __attribute__((noinline)) bool sim_htm_model_irq(void *model) {
  return static_cast<Model *>(model)->irq();
}

namespace {

uint64_t g_cycles_done = 0;

uint64_t htm_next(void *ctx, uint64_t now) {
  const Htm *h = static_cast<const Htm *>(ctx);
  // The first tick after now at which a delay ends (the ticks between change
  // nothing the machine must stop for; advance() still runs every cycle).
  uint64_t best = UINT64_MAX;
  for (uint64_t d : h->due) {
    const uint64_t e = d * h->per_tick; // the tick's edge
    const uint64_t t = d != 0u && e >= h->e0 ? h->t0 + (e - h->e0) * h->cycle_ns : UINT64_MAX;
    best = t > now && t < best ? t : best;
  }
  return best;
}

void htm_advance(void *ctx, uint64_t t) {
  Htm *h = static_cast<Htm *>(ctx);
  if (t < h->last_t) {
    // Virtual time went back (sim_reset() keeps devices): the block's clock
    // goes on from its edge at the new time, as a clock that never stopped.
    h->t0 = t;
    h->e0 = h->edges;
  }
  h->last_t = t;
  if (t < h->t0) {
    return;
  }
  const uint64_t due = h->e0 + (t - h->t0) / h->cycle_ns; // grid edges at or before t
  if (due > h->edges) {
    sim_htm_model_run(h->model.get(), h->edges, due, h->per_tick);
    h->cycles += due - h->edges;
    h->edges = due;
  }
}

bool htm_irq(void *ctx) {
  return sim_htm_model_irq(static_cast<Htm *>(ctx)->model.get());
}

uint32_t htm_read(void *ctx, unsigned reg) {
  Htm *h = static_cast<Htm *>(ctx);
  h->cycles++;
  return sim_htm_model_cycle(h->model.get(), false, true, false, reg, 0);
}

void htm_write(void *ctx, unsigned reg, uint32_t value) {
  Htm *h = static_cast<Htm *>(ctx);
  h->cycles++;
  (void)sim_htm_model_cycle(h->model.get(), false, true, true, reg, value);
  // The stop hint (see Htm::due): registers 0x08 / 0x09 the delay, 0x0a load, 0x0b clear.
  const uint64_t ticks_so_far = h->edges / h->per_tick;
  if (reg == 0x08u) {
    h->delay_lo = value;
  } else if (reg == 0x09u) {
    h->delay_hi = value;
  } else if ((reg == 0x0au || reg == 0x0bu) && (value & 0x3fu) < SIM_HTM_TASKS) {
    // The id field is bits 5:0, as the RTL decodes it.
    const uint64_t d = (uint64_t)h->delay_hi << 32 | h->delay_lo;
    h->due[value & 0x3fu] = reg == 0x0bu ? 0u : ticks_so_far + (d == 0u ? 1u : d);
  }
}

} // namespace

extern "C" int sim_htm_attach(unsigned arch, uint32_t tick_hz, unsigned cycles_per_tick,
                              unsigned line) {
  if (arch > 1u || tick_hz == 0u || cycles_per_tick < SIM_HTM_TASKS + 1u ||
      1000000000u % tick_hz != 0u || (1000000000u / tick_hz) % cycles_per_tick != 0u) {
    return -1;
  }
  auto h = std::make_unique<Htm>();
  if (arch == 0u) {
    h->model = std::make_unique<ModelOf<Vhtm_sim_a0>>();
  } else {
    h->model = std::make_unique<ModelOf<Vhtm_sim_a1>>();
  }
  h->t0 = sim_now();
  h->last_t = h->t0;
  h->per_tick = cycles_per_tick;
  h->cycle_ns = (1000000000u / tick_hz) / cycles_per_tick;
  h->dev = sim_device_t{htm_next, htm_advance, htm_irq, htm_read, htm_write, line};
  const int n = sim_device_attach(&h->dev, h.get());
  if (n < 0) {
    return -1;
  }
  g_htm.push_back(std::move(h));
  return n;
}

extern "C" void sim_htm_detach_all(void) {
  sim_device_detach_all();
  for (const auto &h : g_htm) {
    g_cycles_done += h->cycles;
  }
  g_htm.clear();
}

extern "C" uint64_t sim_htm_cycles(void) {
  uint64_t c = g_cycles_done;
  for (const auto &h : g_htm) {
    c += h->cycles;
  }
  return c;
}
