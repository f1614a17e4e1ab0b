import { SERVICES } from '@masthead/devstack';

/** The stack's own processes (not its infrastructure): the six services and the gateway. */
export const SERVICE_NAMES: readonly string[] = [...SERVICES, 'gateway'];
