import type { Request } from 'express';
import { z } from 'zod';
import { resolveRequestIp } from '../http/request-ip.js';
import { fromFields, optionalText, text } from '../http/request.js';
import type { Handler } from '../routes/define.js';

/**
 * POST /user/event (document 2 L). Text fields of another type count as missing (the service's
 * 409s); `data` travels as JSON and the service checks it is an object; body `user_id`,
 * `resource_id` and `session_id` are not selectors, so unknown keys are ignored.
 */
export const eventRequest = fromFields({
  name: text,
  value: text,
  data: z.unknown().transform((data) => (data === undefined || data === null ? '{}' : JSON.stringify(data))),
  content_key: optionalText,
  custom_recipient_email: z.unknown().transform((email) => (typeof email === 'string' ? email : undefined)),
});

const header = (req: Request, name: string): string => {
  const value = req.headers[name];
  return typeof value === 'string' ? value.trim() : '';
};

/** The first language of Accept-Language (`de-CH;q=0.9, en` → `de-ch`), '' when none. */
const preferredLanguage = (req: Request): string =>
  (header(req, 'accept-language').split(',')[0] ?? '').split(';')[0]!.trim().toLowerCase().slice(0, 35);

/** POST /user/event: a guest or a member; the service adds who and where. `{result: true}`. */
export const submitEvent: Handler<'guestWithResource', z.output<typeof eventRequest>> = async (context, input, { publicEvents }, req) => {
  const user = context.caller.user;
  await publicEvents.submitEvent({
    resourceId: context.resource.id,
    name: input.name,
    value: input.value,
    dataJson: input.data,
    contentKey: input.content_key,
    customRecipientEmail: input.custom_recipient_email,
    userId: user?.id ?? 0,
    sessionId: user ? context.caller.sessionId : 0,
    guestSession: context.headers.session,
    ip: resolveRequestIp(req),
    userAgent: context.userAgent,
    referrer: header(req, 'referer'),
    host: header(req, 'host'),
    language: preferredLanguage(req),
    languageId: user?.languageId,
  });
  return { body: { result: true } };
};
