/*
 * The session rule, read from /proc and the cgroup file system only: no process is spawned, nothing is cached.
 *
 * Why several witnesses: a session's processes can leave its process group and its session (setsid), and lose their
 * parent (a double fork reparents them to init). A cgroup v2 directory per session holds them all, exactly, but it is
 * not writable everywhere. Without one, the environment tag catches those that keep their environment, the session
 * id catches those that keep their session, and the parent chain catches the children of all of them.
 *
 * Why the leader's start time: pids are reused (pid_max is 32768 on many machines). A session id is only trusted
 * while the leader with the start time we recorded still exists (even as a zombie): while it does, its pid cannot
 * belong to anyone else, so every process with that session id is really in our session.
 */
#define _GNU_SOURCE
#include "procs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int th_read_stat(pid_t pid, struct th_stat *st) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  int saved = errno;
  close(fd);
  if (n <= 0) {
    errno = n < 0 ? saved : ESRCH;
    return -1;
  }
  buf[n] = 0;
  /* The command name may hold spaces and parentheses: the fields start after the last ')'. */
  char *p = strrchr(buf, ')');
  if (!p || p[1] != ' ') {
    errno = EINVAL;
    return -1;
  }
  p += 2;
  st->pid = pid;
  st->state = *p;
  /* Fields 4..8: ppid pgrp session tty_nr tpgid; field 22: starttime. */
  int ppid, pgrp, sid, tty, tpgid;
  if (sscanf(p + 1, " %d %d %d %d %d", &ppid, &pgrp, &sid, &tty, &tpgid) != 5) {
    errno = EINVAL;
    return -1;
  }
  st->ppid = ppid;
  st->pgrp = pgrp;
  st->sid = sid;
  st->tpgid = tpgid;
  /* Skip to field 22: we are at field 3 (state); 19 more spaces. */
  for (int field = 3; field < 22; field++) {
    p = strchr(p, ' ');
    if (!p) {
      errno = EINVAL;
      return -1;
    }
    p++;
  }
  st->start = strtoull(p, NULL, 10);
  return 0;
}

/* Does the NUL-separated environment of pid hold exactly "TERMHOST_SESSION_TAG=<tag>"? Streams; any size. */
static int has_tag(pid_t pid, const char *tag) {
  char needle[sizeof TH_TAG_VAR + TH_TAG_MAX + 1];
  int nlen = snprintf(needle, sizeof needle, "%s=%s", TH_TAG_VAR, tag);
  if (nlen <= 0 || (size_t)nlen >= sizeof needle) return 0;
  char path[64], buf[8192];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0; /* another user's process, or gone: not ours */
  int k = 0, same = 1, found = 0;
  ssize_t n;
  while (!found && (n = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; i++) {
      char c = buf[i];
      if (c == 0) {
        if (same && k == nlen) {
          found = 1;
          break;
        }
        k = 0;
        same = 1;
      } else {
        if (same && (k >= nlen || needle[k] != c)) same = 0;
        if (k < nlen + 1) k++;
      }
    }
  }
  if (!found && same && k == nlen) found = 1;
  close(fd);
  return found;
}

struct proc {
  pid_t pid, ppid, sid;
  char state;
  unsigned long long start;
  int mark;
};

static int by_pid(const void *a, const void *b) {
  pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
  return (x > y) - (x < y);
}

static struct proc *find(struct proc *procs, int n, pid_t pid) {
  struct proc key = {.pid = pid};
  return bsearch(&key, procs, n, sizeof *procs, by_pid);
}

/* Read every process's stat. Returns the count and a malloc'd, pid-sorted array, or -1. */
static int read_all(struct proc **out) {
  DIR *d = opendir("/proc");
  if (!d) return -1;
  int n = 0, cap = 512;
  struct proc *procs = malloc(cap * sizeof *procs);
  if (!procs) {
    closedir(d);
    return -1;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    struct th_stat st;
    if (th_read_stat((pid_t)pid, &st) != 0) continue; /* exited while we looked */
    if (n == cap) {
      struct proc *grown = realloc(procs, (cap *= 2) * sizeof *procs);
      if (!grown) {
        free(procs);
        closedir(d);
        errno = ENOMEM;
        return -1;
      }
      procs = grown;
    }
    procs[n++] = (struct proc){st.pid, st.ppid, st.sid, st.state, st.start, 0};
  }
  closedir(d);
  qsort(procs, n, sizeof *procs, by_pid);
  *out = procs;
  return n;
}

/* Mark the members listed in the cgroup's cgroup.procs. */
static void mark_cgroup(const char *cgroup, struct proc *procs, int n) {
  char path[TH_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/cgroup.procs", cgroup);
  FILE *f = fopen(path, "re");
  if (!f) return;
  int pid;
  while (fscanf(f, "%d", &pid) == 1) {
    struct proc *p = find(procs, n, pid);
    if (p) p->mark = 1;
  }
  fclose(f);
}

static int cgroup_holds(const char *cgroup, pid_t who) {
  char path[TH_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/cgroup.procs", cgroup);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  int pid, found = 0;
  while (!found && fscanf(f, "%d", &pid) == 1) found = pid == who;
  fclose(f);
  return found;
}

int th_session_pids(const struct th_session *s, pid_t **out) {
  struct proc *procs;
  int n = read_all(&procs);
  if (n < 0) return -1;
  pid_t self = getpid();
  int leader_ok = 0;
  if (s->leader > 0) {
    struct proc *l = find(procs, n, s->leader);
    leader_ok = l && l->start == s->start;
  }
  if (s->cgroup) mark_cgroup(s->cgroup, procs, n);
  for (int i = 0; i < n; i++) {
    struct proc *p = &procs[i];
    if (p->mark) continue;
    if (leader_ok && (p->pid == s->leader || p->sid == s->leader)) p->mark = 1;
    /* With a cgroup, its membership is exact; the environment is read only without one (it costs a file each). */
    else if (s->tag && !s->cgroup && has_tag(p->pid, s->tag)) p->mark = 1;
  }
  /* Descendants of anything marked, to a fixed point (a parent may sort after its child). */
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = 0; i < n; i++) {
      if (procs[i].mark) continue;
      struct proc *parent = find(procs, n, procs[i].ppid);
      if (parent && parent->mark) procs[i].mark = changed = 1;
    }
  }
  int count = 0;
  pid_t *pids = malloc((n ? n : 1) * sizeof *pids);
  if (!pids) {
    free(procs);
    errno = ENOMEM;
    return -1;
  }
  for (int i = 0; i < n; i++) {
    struct proc *p = &procs[i];
    /* Never the caller, init, or a kernel thread (children of kthreadd, pid 2); zombies cannot be signalled. */
    if (!p->mark || p->pid == self || p->pid <= 2 || p->ppid == 2 || p->state == 'Z' || p->state == 'X') continue;
    pids[count++] = p->pid;
  }
  free(procs);
  *out = pids;
  return count;
}

int th_signal_session(const struct th_session *s, int sig) {
  pid_t *pids;
  int n = th_session_pids(s, &pids);
  if (n < 0) return -1;
  for (int i = 0; i < n; i++) kill(pids[i], sig);
  free(pids);
  /* cgroup.kill also takes whatever forked since the scan. Never while the caller itself is inside. */
  if (sig == SIGKILL && s->cgroup && !cgroup_holds(s->cgroup, getpid())) {
    char path[TH_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/cgroup.kill", s->cgroup);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      if (write(fd, "1", 1) < 0) { /* an older kernel without cgroup.kill: the signals above did the work */ }
      close(fd);
    }
  }
  return n;
}
