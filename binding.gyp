# termhost's native parts, built by node-gyp at install (npm runs it because this file exists; see "scripts.install").
# C only, no dependencies beyond libc and Node's own headers.
{
  'target_defaults': {
    'cflags': ['-Wall', '-Wextra', '-O2', '-std=gnu11'],
    'cflags!': ['-fno-exceptions'],
  },
  'targets': [
    {
      'target_name': 'termhost_native',
      'sources': ['native/addon.c', 'native/procs.c'],
    },
    {
      'target_name': 'termhost_watchdog',
      'type': 'executable',
      'sources': ['native/watchdog.c', 'native/procs.c'],
    },
  ],
}
