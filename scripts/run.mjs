// Shared by the npm entry scripts: run a command, inherit the terminal, fail loudly.
import { spawnSync } from 'node:child_process';

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    ...options,
    env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env, ...options.env },
  });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}
