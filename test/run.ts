/**
 * Run every `test/**\/*.test.ts` with uvu on Node's own TypeScript support, then print one plain closing line
 * (`uvu: N passed, N failed`). Pass file-name fragments to run only matching files: `npm test -- syntax`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const pattern = only.length
  ? `(${only.map((s) => s.replace(/[^\w-]/g, '')).join('|')}).*\\.test\\.ts$`
  : '\\.test\\.ts$';
const bail = process.argv.includes('--bail') ? ['--bail'] : [];

const child = spawn(process.execPath, ['node_modules/uvu/bin.js', 'test', pattern, ...bail], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, NO_COLOR: process.env.NO_COLOR ?? '1' },
});
let out = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk: string) => {
  out += chunk;
  process.stdout.write(chunk);
});
child.on('close', (code) => {
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  // uvu's Total already leaves skipped tests out.
  const failed = code === 0 ? total - passed : Math.max(total - passed, 1);
  process.stdout.write(`\nuvu: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = code === 0 && total > 0 ? 0 : 1;
});
