// The dev stack as a library: what `npm start` runs, reusable by tools that need the same stack
// (the benchmark harness).
export { loadConfig, type DevstackConfig } from './config.js';
export { clearLogs, tailLogs } from './logs.js';
export { waitForHttpOk } from './readiness.js';
export { runAdmin, StackStartError, startStack, type RunningStack, type StackOptions } from './stack.js';
export {
  DEFAULT_RESTART_POLICY,
  Supervisor,
  type RestartPolicy,
  type SupervisorEvents,
  type SupervisorOptions,
  type Tier,
} from './supervisor.js';
export { removeStackFile, stackFilePath, writeStackFile, type StackFile } from './stack-file.js';
export {
  entryPoints,
  planTopology,
  SERVICES,
  urlHost,
  type ProcessSpec,
  type ServiceName,
  type Topology,
  type TopologyOptions,
} from './topology.js';
