/*
 * The smallest useful utim application, built for each Cortex-M board only
 * to measure what "core plus one driver" costs in flash when an application
 * uses the everyday subset of the uAPI: init at an exact frequency, a compare
 * callback, start, relative arming, clear, read. (The conformance firmware
 * links the whole uAPI; its size report shows that figure too.)
 */
#include "utim/utim.h"

static volatile unsigned fired;

static void on_match(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  fired++;
}

int main(void) {
  const utim_periph_t *p = utim_by_index(0u);
  if (p == NULL) {
    return 1;
  }
  const utim_clock_desc_t *c = utim_clock(p, 0u);
  if (c == NULL || utim_init(p, c->hz, UTIM_CLOCK_DEFAULT) != 0) {
    return 1;
  }
  (void)utim_set_compare_cb(p, on_match, NULL);
  (void)utim_start(p);
  if (utim_channels(p) > 0u) {
    (void)utim_set_rel(p, 0u, 1000u);
    (void)utim_clear(p, 0u);
  }
  return (int)(utim_read(p) & 1u);
}
