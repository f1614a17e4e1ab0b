import { createClients, SERVICE_CLIENTS, type ClientName, type ClientOf } from '@masthead/core/clients';

type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/** The named clients of one process merged into one object, for tests that call a process's every area. */
export type ProcessClient<N extends ClientName> = UnionToIntersection<ClientOf<N>> & { close(): void };

/**
 * One client over several area services of the process at `address` (a service split by area,
 * like catalog, is still one process to its tests). Method names are unique within a process.
 */
export function processClient<N extends ClientName>(names: readonly N[], address: string, deadlineMs = 5000): ProcessClient<N> {
  const processes = new Set(names.map((name) => SERVICE_CLIENTS[name].process));
  if (processes.size !== 1) throw new Error(`processClient needs clients of one process, got ${[...processes].join(', ')}`);
  const [process] = processes;
  const clients = createClients(names, { [process!]: address } as never, { defaultDeadlineMs: deadlineMs });
  return Object.assign({}, ...names.map((name) => clients[name]), { close: clients.close }) as ProcessClient<N>;
}
