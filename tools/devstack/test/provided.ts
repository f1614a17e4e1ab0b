import type {} from 'vitest';

// What the root vitest globalSetup (tests/stack/src/global-setup.ts) provides and these tests read.
declare module 'vitest' {
  export interface ProvidedContext {
    natsUrl: string;
  }
}
