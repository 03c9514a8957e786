/*
 * test_fork_native: fork() while another thread holds the native port lock
 * and asks the clock source (as a callback may: it runs with the port lock
 * held). The clock source's fork handler took its lock, then the port's
 * handler waited for the port lock, which that thread held while it waited
 * for the clock source's lock: fork() deadlocked within a second when the
 * port had registered its handlers first (the board initialised before the
 * clock source, argument "board-first"); the other order ("cs-first") did
 * not. Both run; a watchdog turns a hang into a failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board_native.h"
#include "clocksource.h"
#include "harness.h"
#include "utim/port.h"

#define FORKS 500

static atomic_int g_stop;
static atomic_int g_done;
static atomic_ulong g_asks;

static void *asker(void *arg) {
  (void)arg;
  while (!g_stop) {
    uint32_t key = utim_port_lock();
    (void)utim_clocksource_name();
    utim_port_unlock(key);
    g_asks++;
  }
  return NULL;
}

static void *watchdog(void *arg) {
  (void)arg;
  for (int i = 0; i < 400 && !g_done; i++) {
    usleep(50000);
  }
  if (!g_done) {
    static const char msg[] = "not ok 1 - fork() deadlocked: a thread holds the port lock and "
                              "waits for the clock source's\n1..1\n0 passed, 1 failed\n";
    (void)!write(STDOUT_FILENO, msg, sizeof msg - 1u);
    _exit(1);
  }
  return NULL;
}

static void t_fork(void *arg) {
  (void)arg;
#ifdef UTIM_TEST_QEMU_USER
  th_skip("qemu-user (7.2) aborts when a forked child starts a thread (its plugin vCPU hook "
          "asserts): not testable under the emulator");
  return;
#endif
  pthread_t a;
  pthread_t dog;
  TH_EQ(pthread_create(&dog, NULL, watchdog, NULL), 0);
  TH_EQ(pthread_create(&a, NULL, asker, NULL), 0);
  unsigned forks = 0u;
  for (int i = 0; i < FORKS; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      /* The child's locks work: its own port lock and clock source. */
      uint32_t key = utim_port_lock();
      int ok = utim_clocksource_name() != NULL;
      utim_port_unlock(key);
      _exit(ok ? 0 : 1);
    }
    int status = 1;
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0) {
      forks++;
    }
  }
  g_stop = 1;
  (void)pthread_join(a, NULL);
  g_done = 1;
  (void)pthread_join(dog, NULL);
  TH_EQ(forks, FORKS);
  TH_CHECK(g_asks > 0u);
}

int main(int argc, char **argv) {
  th_set_putc(th_stdio_putc);
  bool cs_first = argc > 1 && strcmp(argv[1], "cs-first") == 0;
  /* The order the two register their fork handlers in. */
  if (cs_first) {
    (void)utim_clocksource_init();
    native_board_init();
  } else {
    native_board_init();
    (void)utim_clocksource_init();
  }
  th_run(cs_first ? "native: fork() with the port lock held by a thread asking the clock source "
                    "(clock source first)"
                  : "native: fork() with the port lock held by a thread asking the clock source "
                    "(board first)",
         t_fork, NULL);
  return th_finish();
}
