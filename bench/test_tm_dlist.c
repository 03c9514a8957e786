/**
 * @file test_tm_dlist.c
 * @brief Behaviour of `utim-bench tm`'s delta-list baseline (host/tm_dlist.c):
 *        an advance expires exactly the nodes that came due and keeps the
 *        others' expiries. TAP lines, then "N passed, N failed"; exit status
 *        1 on failure.
 */
#include <stdio.h>

#include "tm_bench.h"

#define N 16u

static unsigned passed;
static unsigned failed;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
  }
  printf("%s %u - %s\n", ok ? "ok" : "not ok", passed + failed, what);
}

int main(void) {
  static dl_node_t nodes[N + 1u];
  uint64_t pairs[1][2] = {{1000u, N}}; /* one far node, as the bench's pending timers */
  dl_build(nodes, pairs, 1u);
  for (unsigned i = 0; i < N; i++) {
    dl_insert(&nodes[i], 1u + i); /* node i due at i + 1 */
  }
  uint64_t e = dl_advance(N + 1u);
  printf("# dl_advance(%u) expired %llu of %u due nodes\n", N + 1u, (unsigned long long)e, N);
  check(e == N, "an advance past every due node expires all of them");
  check(nodes[N].linked, "the far node stays pending");
  check(dl_advance(1000u - (N + 1u) - 1u) == 0u, "the far node is not due one tick early");
  check(dl_advance(1u) == 1u, "the far node expires at its own time");

  /* A periodic node goes back on, its period after its own expiry. */
  dl_build(nodes, pairs, 0u);
  nodes[0].period = 10u;
  dl_insert(&nodes[0], 5u);
  check(dl_advance(24u) == 2u, "periodic, due at 5 and 15: two expiries by 24");
  check(dl_advance(1u) == 1u, "and the next at 25");
  printf("%u passed, %u failed\n", passed, failed);
  return failed != 0u ? 1 : 0;
}
