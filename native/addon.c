/*
 * termhost's native addon: the few calls node-pty lacks, each a thin wrapper around one system call or the shared
 * session rule (procs.c). Errors are thrown as Error objects whose `code` is the errno name, as Node's own are.
 *
 *   setCloexec(fd)                  mark one fd close-on-exec
 *   cloexecFrom(lowFd[, method])    mark every open fd >= lowFd close-on-exec; returns the method used
 *   tcgetpgrp(fd)                   the foreground process group of the terminal (a PTY master answers for its slave)
 *   termiosLocalFlags(fd)           c_lflag of tcgetattr, with ICANON and ECHO decoded
 *   ttyInputBytes(fd)               TIOCINQ: input waiting to be read on a terminal fd (on a PTY slave: what the
 *                                   program has not consumed; in canonical mode only complete lines count)
 *   procStat(pid)                   ppid, pgrp, sid, tpgid, state and start time from /proc/PID/stat, or null
 *   sessionPids(session)            every process of a termhost session (procs.h)
 *   signalSession(session, signo)   signal all of them; SIGKILL also kills the session's cgroup
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "procs.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
/* The rlimit fallback walks at most this many fds: a huge RLIMIT_NOFILE must not turn one sweep into seconds. */
#define SWEEP_RLIMIT_MAX 65536

static const char *errno_code(int e) {
  switch (e) {
    case EBADF: return "EBADF";
    case ENOTTY: return "ENOTTY";
    case EINVAL: return "EINVAL";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case ENOMEM: return "ENOMEM";
    case ENOSYS: return "ENOSYS";
    default: return "EUNKNOWN";
  }
}

static napi_value throw_errno(napi_env env, const char *what, int e) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(e));
  napi_throw_error(env, errno_code(e), msg);
  return NULL;
}

static int arg_int(napi_env env, napi_callback_info info, size_t want, napi_value *args, int32_t *out) {
  size_t argc = want;
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  if (argc < 1 || napi_get_value_int32(env, args[0], out) != napi_ok) {
    napi_throw_type_error(env, "EINVAL", "expected an integer argument");
    return -1;
  }
  return 0;
}

static napi_value num(napi_env env, double v) {
  napi_value r;
  napi_create_double(env, v, &r);
  return r;
}

static napi_value boolean(napi_env env, int v) {
  napi_value r;
  napi_get_boolean(env, v, &r);
  return r;
}

static napi_value str(napi_env env, const char *s) {
  napi_value r;
  napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &r);
  return r;
}

static int cloexec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  if (flags < 0) return -1;
  return (flags & FD_CLOEXEC) ? 0 : fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static napi_value SetCloexec(napi_env env, napi_callback_info info) {
  napi_value args[1];
  int32_t fd;
  if (arg_int(env, info, 1, args, &fd)) return NULL;
  if (cloexec(fd) != 0) return throw_errno(env, "fcntl(FD_CLOEXEC)", errno);
  return NULL;
}

static int sweep_close_range(int low) {
#ifdef SYS_close_range
  return syscall(SYS_close_range, (unsigned)low, ~0U, CLOSE_RANGE_CLOEXEC) == 0 ? 0 : -1;
#else
  (void)low;
  errno = ENOSYS;
  return -1;
#endif
}

static int sweep_proc(int low) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int own = dirfd(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long fd = strtol(e->d_name, &end, 10);
    if (*end || fd < low || fd == own) continue;
    cloexec((int)fd); /* EBADF: closed meanwhile by another thread; nothing to mark */
  }
  closedir(d);
  return 0;
}

static void sweep_rlimit(int low) {
  struct rlimit rl;
  long max = SWEEP_RLIMIT_MAX;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < max) max = (long)rl.rlim_cur;
  for (long fd = low; fd < max; fd++) cloexec((int)fd);
}

/* close_range(CLOSE_RANGE_CLOEXEC) is Linux 5.11+; /proc/self/fd needs /proc; the rlimit walk always works. */
static napi_value CloexecFrom(napi_env env, napi_callback_info info) {
  napi_value args[2];
  size_t argc = 2;
  int32_t low;
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  if (argc < 1 || napi_get_value_int32(env, args[0], &low) != napi_ok || low < 0) {
    napi_throw_type_error(env, "EINVAL", "cloexecFrom(lowFd[, method]): lowFd must be a non-negative integer");
    return NULL;
  }
  char method[16] = "";
  if (argc >= 2) {
    napi_valuetype t;
    napi_typeof(env, args[1], &t);
    if (t == napi_string) napi_get_value_string_utf8(env, args[1], method, sizeof method, NULL);
  }
  int any = !method[0];
  if ((any || !strcmp(method, "close_range")) && sweep_close_range(low) == 0) return str(env, "close_range");
  if (!strcmp(method, "close_range")) return throw_errno(env, "close_range", errno);
  if ((any || !strcmp(method, "proc")) && sweep_proc(low) == 0) return str(env, "proc");
  if (!strcmp(method, "proc")) return throw_errno(env, "opendir(/proc/self/fd)", errno);
  if (!any && strcmp(method, "rlimit")) {
    napi_throw_type_error(env, "EINVAL", "method must be close_range, proc or rlimit");
    return NULL;
  }
  sweep_rlimit(low);
  return str(env, "rlimit");
}

static napi_value Tcgetpgrp(napi_env env, napi_callback_info info) {
  napi_value args[1];
  int32_t fd;
  if (arg_int(env, info, 1, args, &fd)) return NULL;
  pid_t pg = tcgetpgrp(fd);
  if (pg < 0) return throw_errno(env, "tcgetpgrp", errno);
  return num(env, pg);
}

static napi_value TermiosLocalFlags(napi_env env, napi_callback_info info) {
  napi_value args[1];
  int32_t fd;
  if (arg_int(env, info, 1, args, &fd)) return NULL;
  struct termios t;
  if (tcgetattr(fd, &t) != 0) return throw_errno(env, "tcgetattr", errno);
  napi_value o;
  napi_create_object(env, &o);
  napi_set_named_property(env, o, "lflag", num(env, (double)t.c_lflag));
  napi_set_named_property(env, o, "icanon", boolean(env, (t.c_lflag & ICANON) != 0));
  napi_set_named_property(env, o, "echo", boolean(env, (t.c_lflag & ECHO) != 0));
  napi_set_named_property(env, o, "isig", boolean(env, (t.c_lflag & ISIG) != 0));
  return o;
}

static napi_value TtyInputBytes(napi_env env, napi_callback_info info) {
  napi_value args[1];
  int32_t fd;
  if (arg_int(env, info, 1, args, &fd)) return NULL;
  int n = 0;
  if (ioctl(fd, TIOCINQ, &n) != 0) return throw_errno(env, "ioctl(TIOCINQ)", errno);
  return num(env, n);
}

static napi_value ProcStat(napi_env env, napi_callback_info info) {
  napi_value args[1];
  int32_t pid;
  if (arg_int(env, info, 1, args, &pid)) return NULL;
  struct th_stat st;
  napi_value o;
  if (pid <= 0 || th_read_stat(pid, &st) != 0) {
    napi_get_null(env, &o);
    return o;
  }
  char state[2] = {st.state, 0};
  napi_create_object(env, &o);
  napi_set_named_property(env, o, "pid", num(env, st.pid));
  napi_set_named_property(env, o, "ppid", num(env, st.ppid));
  napi_set_named_property(env, o, "pgrp", num(env, st.pgrp));
  napi_set_named_property(env, o, "sid", num(env, st.sid));
  napi_set_named_property(env, o, "tpgid", num(env, st.tpgid));
  napi_set_named_property(env, o, "state", str(env, state));
  napi_set_named_property(env, o, "start", num(env, (double)st.start));
  return o;
}

/* The property `name` of v if it has that type, else NULL. */
static napi_value prop(napi_env env, napi_value v, const char *name, napi_valuetype want) {
  napi_value f;
  napi_valuetype t;
  if (napi_get_named_property(env, v, name, &f) != napi_ok || napi_typeof(env, f, &t) != napi_ok || t != want) return NULL;
  return f;
}

/* A string property into buf (cap bytes with its NUL): 1 if set, 0 if absent, -1 (thrown) if too long. */
static int string_prop(napi_env env, napi_value v, const char *name, char *buf, size_t cap) {
  napi_value f = prop(env, v, name, napi_string);
  size_t len = 0;
  if (!f) return 0;
  napi_get_value_string_utf8(env, f, buf, cap, &len);
  if (len >= cap - 1) {
    char msg[64];
    snprintf(msg, sizeof msg, "%s too long", name);
    napi_throw_range_error(env, "EINVAL", msg);
    return -1;
  }
  return 1;
}

/* Read {leader, start, tag, cgroup} into s; the strings live in the caller's buffers. */
static int session_arg(napi_env env, napi_value v, struct th_session *s, char *tag, char *cgroup) {
  memset(s, 0, sizeof *s);
  int32_t leader = 0;
  double start = 0;
  napi_value f;
  if ((f = prop(env, v, "leader", napi_number))) napi_get_value_int32(env, f, &leader);
  if ((f = prop(env, v, "start", napi_number))) napi_get_value_double(env, f, &start);
  s->leader = leader;
  s->start = (unsigned long long)start;
  int has_tag = string_prop(env, v, "tag", tag, TH_TAG_MAX + 1);
  int has_cgroup = has_tag < 0 ? -1 : string_prop(env, v, "cgroup", cgroup, TH_PATH_MAX + 1);
  if (has_tag < 0 || has_cgroup < 0) return -1;
  if (has_tag) s->tag = tag;
  if (has_cgroup) s->cgroup = cgroup;
  return 0;
}

static napi_value SessionPids(napi_env env, napi_callback_info info) {
  napi_value args[1];
  size_t argc = 1;
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  char tag[TH_TAG_MAX + 1], cgroup[TH_PATH_MAX + 1];
  struct th_session s;
  if (argc < 1 || session_arg(env, args[0], &s, tag, cgroup)) return NULL;
  pid_t *pids;
  int n = th_session_pids(&s, &pids);
  if (n < 0) return throw_errno(env, "reading /proc", errno);
  napi_value arr;
  napi_create_array_with_length(env, n, &arr);
  for (int i = 0; i < n; i++) napi_set_element(env, arr, i, num(env, pids[i]));
  free(pids);
  return arr;
}

static napi_value SignalSession(napi_env env, napi_callback_info info) {
  napi_value args[2];
  size_t argc = 2;
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  char tag[TH_TAG_MAX + 1], cgroup[TH_PATH_MAX + 1];
  struct th_session s;
  int32_t sig;
  if (argc < 2 || session_arg(env, args[0], &s, tag, cgroup)) {
    if (argc < 2) napi_throw_type_error(env, "EINVAL", "signalSession(session, signo)");
    return NULL;
  }
  if (napi_get_value_int32(env, args[1], &sig) != napi_ok || sig <= 0 || sig >= 65) {
    napi_throw_type_error(env, "EINVAL", "signo must be a signal number");
    return NULL;
  }
  int n = th_signal_session(&s, sig);
  if (n < 0) return throw_errno(env, "reading /proc", errno);
  return num(env, n);
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  const napi_property_descriptor fns[] = {
    {"setCloexec", NULL, SetCloexec, NULL, NULL, NULL, napi_enumerable, NULL},
    {"cloexecFrom", NULL, CloexecFrom, NULL, NULL, NULL, napi_enumerable, NULL},
    {"tcgetpgrp", NULL, Tcgetpgrp, NULL, NULL, NULL, napi_enumerable, NULL},
    {"termiosLocalFlags", NULL, TermiosLocalFlags, NULL, NULL, NULL, napi_enumerable, NULL},
    {"ttyInputBytes", NULL, TtyInputBytes, NULL, NULL, NULL, napi_enumerable, NULL},
    {"procStat", NULL, ProcStat, NULL, NULL, NULL, napi_enumerable, NULL},
    {"sessionPids", NULL, SessionPids, NULL, NULL, NULL, napi_enumerable, NULL},
    {"signalSession", NULL, SignalSession, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof fns / sizeof fns[0], fns);
  napi_value bits;
  napi_create_object(env, &bits);
  napi_set_named_property(env, bits, "ICANON", num(env, ICANON));
  napi_set_named_property(env, bits, "ECHO", num(env, ECHO));
  napi_set_named_property(env, bits, "ECHONL", num(env, ECHONL));
  napi_set_named_property(env, bits, "ISIG", num(env, ISIG));
  napi_set_named_property(env, bits, "IEXTEN", num(env, IEXTEN));
  napi_set_named_property(env, exports, "LFLAG", bits);
  return exports;
}
