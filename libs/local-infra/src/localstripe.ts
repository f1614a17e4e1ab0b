import { join, resolve } from 'node:path';

import { resolveLocalStripePython, startFakeProvider } from './card-provider.js';
import { LOOPBACK, type StartedServer, type StartServerOptions } from './server.js';

// Python imports aiohttp and localstripe in about a second here; 30 s covers a loaded CI machine.
const READY_TIMEOUT_MS = 30_000;

export interface StartLocalStripeOptions extends StartServerOptions {
  /**
   * Keep the provider's objects in `<dataDir>/localstripe.pickle` across restarts (the dev stack,
   * whose database remembers customer IDs). Default false: state lives only in the process,
   * which saves pickling the whole store on every write.
   */
  persist?: boolean;
}

/**
 * localstripe's own entry point binds every address (`::`) and, without --from-scratch, loads and
 * rewrites the machine-wide /tmp/localstripe.pickle on every write, shared by all instances.
 * This runs its aiohttp app instead on loopback only, with the store in this server's data folder
 * or nowhere. argv: host, port, store file ('' for none).
 */
const LAUNCHER = `
import logging, os, pickle, sys
from aiohttp import web
from localstripe import resources
from localstripe.server import app

host, port, store_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def dump_to_disk(store):
    if not store_file:
        return
    partial = store_file + '.tmp'
    with open(partial, 'wb') as f:
        pickle.dump(dict(store), f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(partial, store_file)

type(resources.store).dump_to_disk = dump_to_disk
if store_file and os.path.exists(store_file):
    with open(store_file, 'rb') as f:
        resources.store.update(pickle.load(f))

access_log = logging.getLogger('aiohttp.access')
access_log.setLevel(logging.INFO)
access_log.addHandler(logging.StreamHandler())
web.run_app(app, host=host, port=port, access_log=access_log)
`;

/**
 * Starts localstripe (PyPI, pinned by scripts/bootstrap.mjs), a stateful fake of the card
 * provider's API, on a free loopback port; resolves once it answers. `binary` is the Python of
 * its virtualenv (resolveLocalStripePython() when omitted). Stop it by `process.stop()`.
 * What it supports and its quirks: docs/adr/0110.
 */
export async function startLocalStripe(options: StartLocalStripeOptions): Promise<StartedServer> {
  const python = options.binary ?? (await resolveLocalStripePython());
  const storeFile = options.persist ? join(resolve(options.dataDir), 'localstripe.pickle') : '';
  return startFakeProvider(
    {
      name: 'localstripe',
      binary: python,
      args: (port) => ['-c', LAUNCHER, LOOPBACK, String(port), storeFile],
      // Unbuffered, so its access log reaches the log file as requests happen.
      env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
      readyTimeoutMs: READY_TIMEOUT_MS,
    },
    options,
  );
}
