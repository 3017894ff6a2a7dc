/**
 * The long budget of the oracle, fuzz and isolation suites: `node test/deep.ts` (npm run test:deep). It picks a
 * fresh seed unless LISTQL_SEED is set, prints it first, and runs the suites with LISTQL_DEEP=1, which multiplies
 * every budget by LISTQL_DEEP_FACTOR (default 25). A failure prints the seed and the shrunk counter-example;
 * `LISTQL_SEED=<seed> npm run test:deep` replays it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const seed = process.env.LISTQL_SEED ?? String((Date.now() ^ (process.pid << 8)) | 0);
const factor = process.env.LISTQL_DEEP_FACTOR ?? '25';
process.stdout.write(`listql deep run: LISTQL_SEED=${seed} LISTQL_DEEP_FACTOR=${factor}\n`);

const child = spawn(process.execPath, ['test/run.ts', 'properties/'], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  stdio: 'inherit',
  env: { ...process.env, LISTQL_DEEP: '1', LISTQL_SEED: seed, LISTQL_DEEP_FACTOR: factor },
});
child.on('close', (code) => {
  if (code !== 0)
    process.stdout.write(`\nreplay: LISTQL_SEED=${seed} LISTQL_DEEP_FACTOR=${factor} npm run test:deep\n`);
  process.exitCode = code ?? 1;
});
