/**
 * @file test_tm_dlist.c
 * @brief Behaviour of `utim-bench tm`'s delta-list baseline (host/tm_dlist.c):
 *        an advance expires exactly the nodes that came due and keeps the
 *        others' expiries. TAP lines, then "N passed, N failed"; exit status
 *        1 on failure.
 */
#include "harness.h"
#include "tm_bench.h"

#define N 16u

static void t_advance(void *arg) {
  (void)arg;
  static dl_node_t nodes[N + 1u];
  uint64_t pairs[1][2] = {{1000u, N}}; /* one far node, as the bench's pending timers */
  dl_build(nodes, pairs, 1u);
  for (unsigned i = 0; i < N; i++) {
    dl_insert(&nodes[i], 1u + i); /* node i due at i + 1 */
  }
  /* An advance past every due node expires all of them. */
  TH_EQU(dl_advance(N + 1u), N);
  TH_CHECK(nodes[N].linked);                     /* the far node stays pending */
  TH_EQU(dl_advance(1000u - (N + 1u) - 1u), 0u); /* not due one tick early */
  TH_EQU(dl_advance(1u), 1u);                    /* at its own time */

  /* A periodic node goes back on, its period after its own expiry. */
  dl_build(nodes, pairs, 0u);
  nodes[0].period = 10u;
  dl_insert(&nodes[0], 5u);
  TH_EQU(dl_advance(24u), 2u); /* due at 5 and 15 */
  TH_EQU(dl_advance(1u), 1u);  /* and the next at 25 */
}

int main(void) {
  th_set_putc(th_stdio_putc);
  th_run("delta list: every due node expires, a far one at its own time, periodic ones go back on",
         t_advance, NULL);
  return th_finish();
}
