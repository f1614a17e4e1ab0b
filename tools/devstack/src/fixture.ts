import { access } from 'node:fs/promises';
import { join } from 'node:path';

import { spawnManaged, type ManagedProcess } from '@masthead/local-infra';

/**
 * Starts the admin CLI loading fixtures/demo.json; undefined when the CLI is not built.
 * Runs on every start, so `load-fixture` must treat an already loaded fixture as success.
 */
export async function startDemoFixtureLoad(
  repoRoot: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  echo: boolean,
): Promise<ManagedProcess | undefined> {
  const cli = join(repoRoot, 'tools', 'admin', 'dist', 'cli.js');
  try {
    await access(cli);
  } catch {
    return undefined;
  }
  return spawnManaged(process.execPath, [cli, 'load-fixture', join('fixtures', 'demo.json')], {
    name: 'admin',
    cwd: repoRoot,
    env,
    logFile,
    echo,
    ownProcessGroup: true,
  });
}
