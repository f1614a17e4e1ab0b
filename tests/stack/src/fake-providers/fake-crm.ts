import {
  armRateLimit,
  bodyObject,
  page,
  router,
  startFakeProviderServer,
  type FakeAnswer,
  type FakeCall,
  type FakeProviderServer,
  type RateLimitOptions,
} from './server.js';

/**
 * A stateful fake of the `crm` provider's API v3 (ActiveCampaign), answering as its reference
 * documents (docs/adr/0165): contact sync (create or update by email: 201 or 200), a contact's
 * contact tags, creating and deleting contact tags, and the account's tags (`tagType`,
 * `subscriber_count` as a string; `limit` default 20, at most 100). Errors are the provider's
 * `{errors: [{title, detail, code, source}]}` (422) or `{message}` (403, 404). Accounts are API
 * tokens (`Api-Token` header), each with its own contacts and tags.
 */

export interface FakeCrmContact {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  cdate: string;
  udate: string;
}

export interface FakeCrmTag {
  id: string;
  tag: string;
  tagType: string;
  description: string;
  cdate: string;
}

export interface FakeContactTag {
  id: string;
  contact: string;
  tag: string;
  cdate: string;
}

export class FakeCrmAccount {
  readonly contacts: FakeCrmContact[] = [];
  readonly tags: FakeCrmTag[] = [];
  readonly contactTags: FakeContactTag[] = [];
  private nextId = 1;

  id(): string {
    return String(this.nextId++);
  }

  tag(tag: string, options: { tagType?: string; description?: string } = {}): FakeCrmTag {
    const row = {
      id: this.id(),
      tag,
      tagType: options.tagType ?? 'contact',
      description: options.description ?? '',
      cdate: new Date().toISOString(),
    };
    this.tags.push(row);
    return row;
  }

  contact(email: string): FakeCrmContact | undefined {
    return this.contacts.find((contact) => contact.email === email.toLowerCase());
  }

  /** The tag names the contact of `email` holds now. */
  tagsOf(email: string): string[] {
    const contact = this.contact(email);
    return this.contactTags
      .filter((row) => row.contact === contact?.id)
      .map((row) => this.tags.find((tag) => tag.id === row.tag)?.tag ?? '')
      .sort();
  }

  /** Tags a contact directly (as another integration or the provider's UI would). */
  addContactTag(email: string, tagId: string): void {
    const contact = this.contact(email);
    if (contact) this.contactTags.push({ id: this.id(), contact: contact.id, tag: tagId, cdate: new Date().toISOString() });
  }
}

export interface FakeCrm extends FakeProviderServer {
  /** The account behind API token `apiKey` (created on first use). */
  account(apiKey: string): FakeCrmAccount;
  /** The next `count` (matching) requests answer 429, with Retry-After when given. */
  rateLimit(count: number, options?: RateLimitOptions): void;
}

const message = (status: number, text: string): FakeAnswer => ({ status, body: { message: text } });
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function startFakeCrm(): Promise<FakeCrm> {
  const accounts = new Map<string, FakeCrmAccount>();
  const base = (call: FakeCall) => `http://${call.headers.host ?? 'fake'}/api/3`;
  const contactTagBody = (call: FakeCall, row: FakeContactTag) => ({
    contact: row.contact,
    tag: row.tag,
    cdate: row.cdate,
    created_timestamp: row.cdate,
    updated_timestamp: row.cdate,
    created_by: null,
    updated_by: null,
    links: { tag: `${base(call)}/contactTags/${row.id}/tag`, contact: `${base(call)}/contactTags/${row.id}/contact` },
    id: row.id,
  });
  const withAccount = (call: FakeCall, then: (account: FakeCrmAccount) => FakeAnswer): FakeAnswer => {
    const token = call.headers['api-token'];
    const account = typeof token === 'string' ? accounts.get(token) : undefined;
    return account ? then(account) : message(403, 'You are not authorized to access this resource');
  };

  const server = await startFakeProviderServer(
    router(
      [
        [
          'POST /api/3/contact/sync',
          (call) =>
            withAccount(call, (account) => {
              const input = (bodyObject(call)['contact'] ?? {}) as Record<string, unknown>;
              const email = typeof input['email'] === 'string' ? input['email'].trim().toLowerCase() : '';
              if (!EMAIL.test(email)) {
                return {
                  status: 422,
                  body: {
                    errors: [
                      {
                        title: 'Contact Email Address is not valid.',
                        detail: '',
                        code: 'email_invalid',
                        source: { pointer: '/data/attributes/email' },
                      },
                    ],
                  },
                };
              }
              const now = new Date().toISOString();
              let contact = account.contact(email);
              const created = !contact;
              if (!contact) {
                contact = { id: account.id(), email, firstName: '', lastName: '', phone: '', cdate: now, udate: now };
                account.contacts.push(contact);
              }
              for (const field of ['firstName', 'lastName', 'phone'] as const) {
                if (typeof input[field] === 'string') contact[field] = input[field];
              }
              contact.udate = now;
              return {
                status: created ? 201 : 200,
                body: {
                  fieldValues: [],
                  contact: {
                    ...contact,
                    orgid: '0',
                    organization: '',
                    links: { contactTags: `${base(call)}/contacts/${contact.id}/contactTags` },
                  },
                },
              };
            }),
        ],
        [
          'GET /api/3/contacts/:id/contactTags',
          (call, [id]) =>
            withAccount(call, (account) => {
              if (!account.contacts.some((contact) => contact.id === id))
                return message(404, `No Result found for Subscriber with id ${id}`);
              return {
                status: 200,
                body: { contactTags: account.contactTags.filter((row) => row.contact === id).map((row) => contactTagBody(call, row)) },
              };
            }),
        ],
        [
          'POST /api/3/contactTags',
          (call) =>
            withAccount(call, (account) => {
              const input = (bodyObject(call)['contactTag'] ?? {}) as Record<string, unknown>;
              const contact = account.contacts.find((row) => row.id === String(input['contact']));
              if (!contact) return message(404, `No Result found for Subscriber with id ${String(input['contact'])}`);
              if (!account.tags.some((tag) => tag.id === String(input['tag'])))
                return message(404, `No Result found for Tag with id ${String(input['tag'])}`);
              let row = account.contactTags.find((candidate) => candidate.contact === contact.id && candidate.tag === String(input['tag']));
              if (!row) {
                row = { id: account.id(), contact: contact.id, tag: String(input['tag']), cdate: new Date().toISOString() };
                account.contactTags.push(row);
              }
              return { status: 201, body: { contacts: [contact], contactTag: contactTagBody(call, row) } };
            }),
        ],
        [
          'DELETE /api/3/contactTags/:id',
          (call, [id]) =>
            withAccount(call, (account) => {
              const index = account.contactTags.findIndex((row) => row.id === id);
              if (index < 0) return message(404, `No Result found for ContactTag with id ${id}`);
              account.contactTags.splice(index, 1);
              return { status: 200, body: {} };
            }),
        ],
        [
          'GET /api/3/tags',
          (call) =>
            withAccount(call, (account) => {
              const tags = account.tags.map((tag) => ({
                tagType: tag.tagType,
                tag: tag.tag,
                description: tag.description,
                cdate: tag.cdate,
                // The provider sends this count as a string.
                subscriber_count: String(account.contactTags.filter((row) => row.tag === tag.id).length),
                links: { contactGoalTags: `${base(call)}/tags/${tag.id}/contactGoalTags` },
                id: tag.id,
              }));
              return { status: 200, body: { tags: page(tags, call, 'limit', 20, 100), meta: { total: String(tags.length) } } };
            }),
        ],
      ],
      () => message(404, 'Not Found'),
    ),
  );
  return {
    ...server,
    account(apiKey) {
      const account = accounts.get(apiKey) ?? new FakeCrmAccount();
      accounts.set(apiKey, account);
      return account;
    },
    rateLimit: (count, options = {}) => armRateLimit(server, count, options, () => message(429, 'Too Many Requests')),
  };
}
