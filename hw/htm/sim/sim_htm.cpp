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
  uint64_t t0 = 0;       // virtual time of the block's start
  uint64_t cycle_ns = 0; // ns between grid clock edges
  unsigned per_tick = 0; // grid edges per tick
  uint64_t edges = 0;    // grid edges run so far
  uint64_t cycles = 0;   // all clock cycles (grid and bus)
  sim_device_t dev{};
};

std::vector<std::unique_ptr<Htm>> g_htm;
uint64_t g_cycles_done = 0;

uint64_t htm_next(void *ctx, uint64_t now) {
  const Htm *h = static_cast<const Htm *>(ctx);
  // The next tick edge after now (the edges between ticks change nothing visible on their own).
  const uint64_t period = h->cycle_ns * h->per_tick;
  const uint64_t k = now < h->t0 ? 0 : (now - h->t0) / period + 1u;
  return h->t0 + k * period;
}

void htm_advance(void *ctx, uint64_t t) {
  Htm *h = static_cast<Htm *>(ctx);
  if (t < h->t0) {
    return;
  }
  const uint64_t due = (t - h->t0) / h->cycle_ns; // grid edges at or before t
  while (h->edges < due) {
    h->edges++;
    h->model->cycle(h->edges % h->per_tick == 0u, false, false, 0, 0);
    h->cycles++;
  }
}

bool htm_irq(void *ctx) {
  return static_cast<Htm *>(ctx)->model->irq();
}

uint32_t htm_read(void *ctx, unsigned reg) {
  Htm *h = static_cast<Htm *>(ctx);
  h->cycles++;
  return h->model->cycle(false, true, false, reg, 0);
}

void htm_write(void *ctx, unsigned reg, uint32_t value) {
  Htm *h = static_cast<Htm *>(ctx);
  h->cycles++;
  (void)h->model->cycle(false, true, true, reg, value);
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
