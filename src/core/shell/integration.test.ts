import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NONCE_ENV, planShell } from './integration.js';

const DIR = '/pkg/shell';
const env = { PATH: '/usr/bin', HOME: '/home/u' };

for (const [argv, wanted, integration, spawn] of [
  [['bash'], true, 'active', ['bash', '--rcfile', '/pkg/shell/bash/termhost.bash', '-i']],
  [['/bin/bash', '-l'], true, 'active', ['/bin/bash', '--rcfile', '/pkg/shell/bash/termhost.bash', '-i']],
  [['-bash'], true, 'active', ['-bash', '--rcfile', '/pkg/shell/bash/termhost.bash', '-i']],
  [['zsh', '-l'], true, 'active', ['zsh', '-l']],
  [['fish'], true, 'active', ['fish', '--init-command', "source '/pkg/shell/fish/termhost.fish'"]],
  [['bash'], false, 'off', ['bash']],
  [['bash', '-c', 'make'], true, 'unsupported', ['bash', '-c', 'make']],
  [['bash', '--norc'], true, 'unsupported', ['bash', '--norc']],
  [['sh'], true, 'unsupported', ['sh']],
  [['dash'], true, 'unsupported', ['dash']],
  [['python3'], true, 'unsupported', ['python3']],
] as const) {
  test(`${argv.join(' ')} (integration ${wanted ? 'asked for' : 'off'}) -> ${integration}`, () => {
    const plan = planShell(argv, env, wanted, DIR);
    assert.equal(plan.integration, integration);
    assert.deepEqual(plan.argv, spawn);
    assert.equal(plan.nonce === undefined, integration !== 'active');
    if (plan.nonce) assert.match(plan.nonce, /^[0-9a-f]{24}$/);
    assert.equal(plan.env[NONCE_ENV], plan.nonce);
  });
}

test('bash --login reads the login files through the rcfile; zsh keeps the user\'s ZDOTDIR to give back', () => {
  assert.equal(planShell(['bash', '--login'], env, true, DIR).env.TERMHOST_SHELL_LOGIN, '1');
  assert.equal(planShell(['bash'], env, true, DIR).env.TERMHOST_SHELL_LOGIN, undefined);
  const z = planShell(['zsh'], { ...env, ZDOTDIR: '/home/u/.config/zsh' }, true, DIR);
  assert.deepEqual([z.env.ZDOTDIR, z.env.TERMHOST_ZDOTDIR], ['/pkg/shell/zsh', '/home/u/.config/zsh']);
  assert.equal(planShell(['zsh'], env, true, DIR).env.TERMHOST_ZDOTDIR, undefined);
  assert.equal(planShell(["fish"], env, true, "/it's here").argv[2], "source '/it\\'s here/fish/termhost.fish'");
});

test('each session gets its own nonce', () => {
  assert.notEqual(planShell(['bash'], env, true, DIR).nonce, planShell(['bash'], env, true, DIR).nonce);
});
