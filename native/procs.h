/*
 * Which processes belong to a termhost session, and signalling them all. Shared by the addon (the daemon's DELETE)
 * and the watchdog (after the daemon died), so both apply exactly the same rule.
 */
#ifndef TERMHOST_PROCS_H
#define TERMHOST_PROCS_H

#include <sys/types.h>

/* The environment variable every session's first process is started with; its value is the session's tag. */
#define TH_TAG_VAR "TERMHOST_SESSION_TAG"
/* Longest tag, cgroup path and pid list the rule works with. */
#define TH_TAG_MAX 64
#define TH_PATH_MAX 4096

struct th_session {
  pid_t leader;             /* the session's first process (a session leader), or 0 while not yet known */
  unsigned long long start; /* the leader's start time (field 22 of /proc/PID/stat), so a reused pid is not taken */
  const char *tag;          /* the value of TH_TAG_VAR, or NULL */
  const char *cgroup;       /* the session's cgroup v2 directory, or NULL */
};

struct th_stat {
  pid_t pid, ppid, pgrp, sid, tpgid;
  char state;
  unsigned long long start;
};

/* 0 and *st filled, or -1 with errno (ENOENT: no such process). */
int th_read_stat(pid_t pid, struct th_stat *st);

/*
 * Every live (not zombie) process of the session, never the caller itself nor pid 1. A process belongs to the
 * session when it is in the session's cgroup, carries the session's tag in its environment, has the leader's session
 * id while that leader is alive (checked by start time), or descends (by parent pid) from any of those. Returns how
 * many there are and sets *out to a malloc'd array of them (the caller frees it), or returns -1 with errno.
 */
int th_session_pids(const struct th_session *s, pid_t **out);

/*
 * Send sig to every process of the session; for SIGKILL also kill the whole cgroup at once (cgroup.kill), which
 * catches a process forking at that moment. Returns the number of processes found, or -1.
 */
int th_signal_session(const struct th_session *s, int sig);

#endif
