import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClients } from '@masthead/core/clients';
import { EVENT_STREAM, EVENT_SUBJECT_PREFIX, type DomainEvent } from '@masthead/core/events';
import { AckPolicy, DeliverPolicy, nanos, StringCodec, type NatsConnection } from 'nats';
import type { StackHandle } from './support.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const INTEGRATIONS_OPERATOR = ['templates', 'captcha', 'publicEvents', 'webhooks'] as const;

/** Operator clients of integrations' embedded settings, events and webhooks, on the stack's address. */
export function integrationsOperator(s: StackHandle) {
  return createClients(INTEGRATIONS_OPERATOR, { integrations: s.stack.env['INTEGRATIONS_ADDR']! }, { defaultDeadlineMs: 10_000 });
}

/** Runs the admin CLI against the stack (as an operator would); stdin for the secret-reading commands. */
export async function adminCli(s: StackHandle, args: string[], stdin?: string): Promise<{ stdout: string; stderr: string }> {
  const child = run(process.execPath, ['tools/admin/dist/cli.js', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...s.stack.env, MASTHEAD_ENV: 'development' },
  });
  if (stdin !== undefined) {
    child.child.stdin?.end(stdin);
  } else {
    child.child.stdin?.end();
  }
  return child;
}

/** Every event of `name` the stream holds now (a fresh ephemeral consumer reads it from the start). */
export async function streamedEvents(nats: NatsConnection, name: string): Promise<DomainEvent[]> {
  const manager = await nats.jetstreamManager();
  const created = await manager.consumers.add(EVENT_STREAM, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `${EVENT_SUBJECT_PREFIX}${name}`,
    inactive_threshold: nanos(30_000),
  });
  const consumer = await nats.jetstream().consumers.get(EVENT_STREAM, created.name);
  const pending = created.num_pending;
  const events: DomainEvent[] = [];
  if (pending > 0) {
    for await (const message of await consumer.fetch({ max_messages: pending, expires: 2000 })) {
      events.push(JSON.parse(StringCodec().decode(message.data)) as DomainEvent);
      if (events.length >= pending) break;
    }
  }
  await consumer.delete().catch(() => undefined);
  return events;
}
