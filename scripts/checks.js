/**
 * `npm run checks`: the type check and the lint of `npm test`, side by side (each keeps one core busy for most of
 * its run, so on two cores together they take about as long as the lint alone). Each one's output is printed
 * whole when it ends, never interleaved; the exit code is the first failure's, 0 when both pass.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(import.meta.dirname, '..');
const bin = (pkg, file) => join(ROOT, 'node_modules', pkg, 'bin', file);
const CHECKS = [
  { name: 'typecheck', args: [bin('typescript', 'tsc'), '-p', 'tsconfig.json', '--noEmit'] },
  { name: 'lint', args: [bin('eslint', 'eslint.js'), '.'] },
];

function run({ name, args }) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const status = code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(Buffer.concat(output));
      process.stdout.write(`${name} ${status} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      resolve(code === 0 ? 0 : (code ?? 1));
    });
  });
}

const codes = await Promise.all(CHECKS.map(run));
process.exitCode = codes.find((code) => code !== 0) ?? 0;
