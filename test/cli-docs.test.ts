/**
 * docs/cli.md carries every command's help exactly as `termhost help CMD` prints it, made from the same tables, so
 * the reference cannot drift from the CLI. `UPDATE_DOCS=1 node --import tsx --test test/cli-docs.test.ts` rewrites
 * the generated part after a command's table changed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadAllCommands } from '../src/cli/commands/index.js';
import { commandHelp } from '../src/cli/help.js';
import { ROOT } from './helpers.js';

const FILE = path.join(ROOT, 'docs', 'cli.md');
const BEGIN = '<!-- commands: generated from the flag tables (test/cli-docs.test.ts) -->';
const END = '<!-- end of commands -->';

test('docs/cli.md shows every command\'s help as the CLI prints it (the global flags once, above)', async () => {
  const commands = await loadAllCommands();
  const generated = commands.map((c) => `### termhost ${c.name}\n\n\`\`\`text\n${commandHelp(c, { globals: false })}\`\`\`\n`).join('\n');
  const doc = fs.readFileSync(FILE, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  assert.ok(start >= 0 && end > start, `docs/cli.md has the markers ${BEGIN} ... ${END}`);
  const want = `${doc.slice(0, start + BEGIN.length)}\n\n${generated}\n${doc.slice(end)}`;
  if (process.env.UPDATE_DOCS === '1') fs.writeFileSync(FILE, want);
  assert.equal(doc, want, 'docs/cli.md is out of date: UPDATE_DOCS=1 node --import tsx --test test/cli-docs.test.ts');
});
