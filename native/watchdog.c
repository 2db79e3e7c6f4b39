/*
 * termhost_watchdog DAEMON_PID GRACE_MS CGROUP_PARENT|-
 *
 * Ends every session process once the daemon is gone, however it went (SIGKILL included). The daemon starts it once
 * with a pipe as stdin and tells it, one line each, about every session:
 *   S TAG CGROUP|-      a session is about to start (its tag, and its cgroup directory if it has one)
 *   P TAG PID START     its first process, with that process's start time
 *   E TAG               the daemon ended it itself; forget it
 * End of file on the pipe means the daemon died (only the daemon holds the write end, close-on-exec). Then every
 * process of every remaining session gets SIGHUP, and SIGKILL after GRACE_MS if any is left (the rule is procs.c,
 * the same the daemon's DELETE uses). Then the session cgroups and CGROUP_PARENT are removed and the watchdog exits.
 * As a second witness it checks every few seconds that the daemon's pid still names the daemon (start time).
 *
 * It runs in its own session, so a signal to the daemon's process group or terminal does not take it along, and holds
 * no fd but its pipe and /dev/null.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "procs.h"

/* How often the daemon's pid is checked as a second witness, and how often a kill checks for survivors. */
#define LIVENESS_CHECK_MS 2000
#define KILL_POLL_MS 50
/* After SIGKILL, how long to keep looking for processes (a D-state process can take a moment to go). */
#define KILL_WAIT_MS 5000
/* One line of the protocol at most; longer lines are dropped whole. Sessions tracked at most. */
#define LINE_MAX_BYTES (TH_PATH_MAX + 128)
#define SESSIONS_MAX 65536

struct entry {
  char tag[TH_TAG_MAX + 1];
  char *cgroup;
  struct th_session s;
};

static struct entry *table;
static int count, cap;

static struct entry *lookup(const char *tag) {
  for (int i = 0; i < count; i++)
    if (!strcmp(table[i].tag, tag)) return &table[i];
  return NULL;
}

static void handle(char *line) {
  char *save, *op = strtok_r(line, " ", &save), *tag = strtok_r(NULL, " ", &save);
  if (!op || !tag || strlen(tag) > TH_TAG_MAX) return;
  struct entry *e = lookup(tag);
  if (!strcmp(op, "S")) {
    char *cg = strtok_r(NULL, " ", &save);
    if (e || count >= SESSIONS_MAX) return;
    if (count == cap) {
      int grown = cap ? cap * 2 : 16;
      struct entry *t = realloc(table, grown * sizeof *t);
      if (!t) return;
      table = t;
      cap = grown;
    }
    e = &table[count++];
    memset(e, 0, sizeof *e);
    strcpy(e->tag, tag);
    e->s.tag = e->tag;
    if (cg && strcmp(cg, "-")) {
      e->cgroup = strdup(cg);
      e->s.cgroup = e->cgroup;
    }
  } else if (!strcmp(op, "P") && e) {
    char *pid = strtok_r(NULL, " ", &save), *start = strtok_r(NULL, " ", &save);
    if (!pid || !start) return;
    e->s.leader = (pid_t)strtol(pid, NULL, 10);
    e->s.start = strtoull(start, NULL, 10);
  } else if (!strcmp(op, "E") && e) {
    free(e->cgroup);
    *e = table[--count];
    if (e != &table[count]) e->s.tag = e->tag, e->s.cgroup = e->cgroup;
  }
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Processes left in all sessions (the rule's count). */
static int left(void) {
  int total = 0;
  for (int i = 0; i < count; i++) {
    pid_t *pids;
    int n = th_session_pids(&table[i].s, &pids);
    if (n > 0) total += n, free(pids);
    else if (n == 0) free(pids);
  }
  return total;
}

static void signal_all(int sig) {
  for (int i = 0; i < count; i++) th_signal_session(&table[i].s, sig);
}

static void end_everything(long grace_ms, const char *parent) {
  if (count) {
    signal_all(SIGHUP);
    long long deadline = now_ms() + grace_ms;
    while (left() && now_ms() < deadline) nap(KILL_POLL_MS);
    deadline = now_ms() + KILL_WAIT_MS;
    while (left() && now_ms() < deadline) {
      signal_all(SIGKILL);
      nap(KILL_POLL_MS);
    }
  }
  /* A cgroup is removable once its last process has exited; allow the kernel a moment to notice. */
  for (int i = 0; i < count; i++) {
    if (!table[i].cgroup) continue;
    for (int tries = 0; rmdir(table[i].cgroup) != 0 && errno == EBUSY && tries < 40; tries++) nap(KILL_POLL_MS);
  }
  if (parent) rmdir(parent);
}

static int daemon_alive(pid_t pid, unsigned long long start) {
  struct th_stat st;
  return th_read_stat(pid, &st) == 0 && st.start == start && st.state != 'Z';
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: termhost_watchdog DAEMON_PID GRACE_MS CGROUP_PARENT|-\n");
    return 2;
  }
  pid_t daemon_pid = (pid_t)strtol(argv[1], NULL, 10);
  long grace_ms = strtol(argv[2], NULL, 10);
  const char *parent = strcmp(argv[3], "-") ? argv[3] : NULL;
  struct th_stat dst;
  if (daemon_pid <= 1 || th_read_stat(daemon_pid, &dst) != 0) return 2;

  setsid(); /* the daemon starts it detached already; this keeps it so when it is started by hand */
  if (chdir("/") != 0) { /* "/" always exists; nothing to do if it somehow fails */ }
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTSTP, SIG_IGN);
  signal(SIGTTIN, SIG_IGN);
  signal(SIGTTOU, SIG_IGN);
  /* Nothing the daemon had open may stay open here: only the pipe (0), and 1 and 2 until they become /dev/null. */
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 0) != 0)
#endif
    for (int fd = 3; fd < 1024; fd++) close(fd);
  int devnull = open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    dup2(devnull, 1);
    dup2(devnull, 2);
    if (devnull > 2) close(devnull);
  }

  static char buf[LINE_MAX_BYTES + 1];
  size_t used = 0;
  int dropping = 0;
  for (;;) {
    struct pollfd p = {0, POLLIN, 0};
    int r = poll(&p, 1, LIVENESS_CHECK_MS);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      if (!daemon_alive(daemon_pid, dst.start)) break;
      continue;
    }
    ssize_t n = read(0, buf + used, LINE_MAX_BYTES - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; /* end of file: the daemon is gone */
    used += (size_t)n;
    char *line = buf, *nl;
    while ((nl = memchr(line, '\n', used - (size_t)(line - buf)))) {
      *nl = 0;
      if (!dropping) handle(line);
      dropping = 0;
      line = nl + 1;
    }
    used -= (size_t)(line - buf);
    memmove(buf, line, used);
    if (used == LINE_MAX_BYTES) used = 0, dropping = 1; /* an over-long line: drop it up to its newline */
  }
  end_everything(grace_ms, parent);
  return 0;
}
