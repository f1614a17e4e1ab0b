import { readFileSync } from 'node:fs';
import { loadBillingConfig, startBillingService } from '@masthead/billing';
import { createLogger } from '@masthead/core/logging';
import { runUntilSignalled } from '@masthead/core/service';

/*
 * Entry of a billing process started by billing-process.ts (tests only). Two test seams, from
 * the environment because the process is separate: MASTHEAD_TEST_CRASH_AFTER_WRITE kills it
 * (SIGKILL, no cleanup) right after a provider write whose key contains the text, before the
 * write is recorded; MASTHEAD_TEST_CLOCK_FILE names a file holding the time its clock reads.
 */
const config = loadBillingConfig(process.env);
const logger = createLogger({ name: 'billing', level: config.LOG_LEVEL });
const crash = process.env['MASTHEAD_TEST_CRASH_AFTER_WRITE'];
const clockFile = process.env['MASTHEAD_TEST_CLOCK_FILE'];

runUntilSignalled(
  () =>
    startBillingService(config, logger, {
      afterProviderWrite: async (key) => {
        if (crash && key.includes(crash)) process.kill(process.pid, 'SIGKILL');
      },
      now: clockFile ? () => new Date(readFileSync(clockFile, 'utf8').trim()) : undefined,
    }),
  logger,
);
