import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@masthead/service-testkit';

/** A platform the fake knows: its connect client ID and the secret key that acts for it. */
export interface FakePlatform {
  clientId: string;
  secretKey: string;
}

/** One call the fake received on its OAuth API, for assertions (the form as sent). */
export interface RecordedOAuthCall {
  path: string;
  form: Record<string, string>;
}

export interface FakeConnectOAuth {
  /** `http://127.0.0.1:PORT`: CARDPROVIDER_CONNECT_BASE of the stack under test. */
  url: string;
  /** Calls to /oauth/token and /oauth/deauthorize, in order. */
  calls: RecordedOAuthCall[];
  /** Accounts connected now, by account ID → client ID. */
  connected: ReadonlyMap<string, string>;
  /** The account disconnects the platform from its own side (its dashboard). */
  disconnectFromAccount(accountId: string): void;
  stop(): Promise<void>;
}

/** Where the fake "redirects" after approval, as the provider sends to the registered redirect URI. */
export const FAKE_CONNECT_REDIRECT = 'https://publisher.example.test/cardprovider/connect/callback';

interface IssuedCode {
  clientId: string;
  used: boolean;
  /** The account the code's first exchange connected (revoked when the code is replayed). */
  accountId?: string;
}

const readForm = async (req: IncomingMessage): Promise<Record<string, string>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
};

const answer = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
/** The provider's OAuth error shape: a string `error` and an `error_description`. */
const oauthError = (res: ServerResponse, status: number, error: string, description: string) =>
  answer(res, status, { error, error_description: description });

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * A stateful fake of the card provider's connect OAuth (standard accounts), answering as the
 * provider documents it (docs/adr/0126): GET /oauth/authorize approves at once and redirects with
 * a code; POST /oauth/token exchanges a code once (a replay is `invalid_grant` and revokes what
 * the code granted); POST /oauth/deauthorize disconnects a connected account, and refuses one
 * that is not connected to the client (`invalid_client`). Calls authenticate with the platform's
 * secret key as a bearer token. In-process, on a free loopback port; `stop()` closes it.
 */
export async function startFakeConnectOAuth(platforms: FakePlatform[]): Promise<FakeConnectOAuth> {
  const codes = new Map<string, IssuedCode>();
  const connected = new Map<string, string>();
  const calls: RecordedOAuthCall[] = [];
  const platformOf = (req: IncomingMessage) => {
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    return platforms.find((platform) => platform.secretKey === key);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
        const clientId = url.searchParams.get('client_id') ?? '';
        if (url.searchParams.get('response_type') !== 'code' || !platforms.some((p) => p.clientId === clientId)) {
          return oauthError(res, 400, 'invalid_request', 'Invalid client_id or response_type');
        }
        const code = id('ac');
        codes.set(code, { clientId, used: false });
        const redirect = new URL(FAKE_CONNECT_REDIRECT);
        redirect.search = new URLSearchParams({
          scope: url.searchParams.get('scope') ?? 'read_only',
          code,
          state: url.searchParams.get('state') ?? '',
        }).toString();
        res.writeHead(302, { location: redirect.toString() });
        return res.end();
      }
      if (req.method !== 'POST') return oauthError(res, 404, 'invalid_request', 'Unrecognized request URL');
      const form = await readForm(req);
      calls.push({ path: url.pathname, form });
      const platform = platformOf(req);
      if (!platform) return oauthError(res, 401, 'invalid_client', 'Invalid API Key provided');
      if (url.pathname === '/oauth/token') {
        if (form['grant_type'] !== 'authorization_code') {
          return oauthError(res, 400, 'unsupported_grant_type', `Unsupported grant type: ${form['grant_type'] ?? ''}`);
        }
        const code = form['code'] ?? '';
        const issued = codes.get(code);
        if (!issued || issued.clientId !== platform.clientId) {
          return oauthError(res, 400, 'invalid_grant', `Authorization code does not exist: ${code}`);
        }
        if (issued.used) {
          if (issued.accountId) connected.delete(issued.accountId);
          return oauthError(
            res,
            400,
            'invalid_grant',
            'This authorization code has already been used. All tokens issued with this code have been revoked.',
          );
        }
        issued.used = true;
        issued.accountId = id('acct');
        connected.set(issued.accountId, platform.clientId);
        const livemode = platform.secretKey.startsWith('sk_live_');
        return answer(res, 200, {
          access_token: livemode ? id('sk_live') : id('sk_test'),
          livemode,
          refresh_token: id('rt'),
          token_type: 'bearer',
          stripe_publishable_key: livemode ? id('pk_live') : id('pk_test'),
          stripe_user_id: issued.accountId,
          scope: 'read_write',
        });
      }
      if (url.pathname === '/oauth/deauthorize') {
        const accountId = form['stripe_user_id'] ?? '';
        if (form['client_id'] !== platform.clientId) {
          return oauthError(res, 401, 'invalid_client', `No such application: '${form['client_id'] ?? ''}'`);
        }
        if (connected.get(accountId) !== platform.clientId) {
          return oauthError(
            res,
            401,
            'invalid_client',
            `This application is not connected to stripe account ${accountId}, or that account does not exist.`,
          );
        }
        connected.delete(accountId);
        return answer(res, 200, { stripe_user_id: accountId });
      }
      return oauthError(res, 404, 'invalid_request', 'Unrecognized request URL');
    })().catch((error: unknown) => oauthError(res, 500, 'server_error', String(error)));
  });
  const listener = await listenOnLoopback(server);
  return {
    url: listener.url,
    calls,
    connected,
    disconnectFromAccount: (accountId) => void connected.delete(accountId),
    stop: listener.close,
  };
}
