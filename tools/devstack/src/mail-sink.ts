import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, StringCodec, type NatsConnection } from 'nats';

/**
 * The mail events of identity (docs/adr/0056) and community (pass invitations and pass
 * authorization tokens, ADR 0152-0153; slot invitations, ADR 0155): each carries the address (or
 * the attendee) and the code a mail sender would write into a message. Listed here because
 * devstack depends on no service.
 */
export const MAIL_EVENT_NAMES = [
  'email_confirmation_requested',
  'password_reset_requested',
  'email_change_requested',
  'ti_event_pass_invite',
  'ti_event_pass_assigned',
  'sponsor_slot_invitation',
] as const;

export interface MailSink {
  close(): Promise<void>;
}

interface MailEvent {
  id?: string;
  name?: string;
  occurred_at?: string;
  payload?: { email?: string | null; recipient_email?: string; assign_id?: number };
}

const codec = StringCodec();
/** A file name from an address: readable, and never a path. */
const safe = (text: string): string => text.replace(/[^A-Za-z0-9@._-]/g, '_').slice(0, 120);

/**
 * Development stand-in for a mail sender: writes every mail event to `<dir>/<time>-<event>-<to>.json`
 * so that a developer can read confirmation and reset codes (README, "Mail in development").
 * Plain NATS subscriptions: it sees what is published while the stack runs.
 */
export async function startMailSink(natsUrl: string, dir: string, log: (message: string) => void): Promise<MailSink> {
  await mkdir(dir, { recursive: true });
  // It reconnects for as long as the stack runs: NATS restarts on the same port.
  const nats: NatsConnection = await connect({ servers: natsUrl, name: 'masthead-dev-mail-sink', maxReconnectAttempts: -1 });
  for (const name of MAIL_EVENT_NAMES) {
    const subscription = nats.subscribe(`masthead.events.${name}`);
    void (async () => {
      for await (const message of subscription) {
        const text = codec.decode(message.data);
        try {
          const event = JSON.parse(text) as MailEvent;
          const to = event.payload?.email ?? event.payload?.recipient_email ?? `user-${event.payload?.assign_id ?? 'unknown'}`;
          const file = join(dir, `${safe(event.occurred_at ?? new Date().toISOString())}-${name}-${safe(to)}.json`);
          await writeFile(file, `${JSON.stringify(event, null, 2)}\n`);
          log(`mail ${name} to ${to}: ${file}`);
        } catch (error) {
          log(`mail sink could not write ${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })();
  }
  return { close: () => nats.close() };
}
