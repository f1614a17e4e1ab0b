// One lint setup for the whole tree (STYLE.md 14): type-aware rules on sources, lighter rules on tests.
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** The gRPC services; each is a deployable of its own (DESIGN.md "Boundaries", ADR 0101). */
const SERVICES = ['accounts', 'identity', 'catalog', 'billing', 'community', 'integrations'];
/** Packages that are deployables: nothing but composition roots (tests/stack, deploy) may import them. */
const DEPLOYABLES = [...SERVICES, 'gateway'];

const NO_FOREIGN_SRC = {
  group: ['@masthead/*/src/*', '../../*/src/*'],
  message: 'Import another package through its exports, not its src/.',
};

/** `no-restricted-imports` options: no other package's src/, and none of `packages` at all. */
const importRules = (packages, message) => [
  'error',
  {
    patterns: [
      NO_FOREIGN_SRC,
      ...(packages.length > 0 ? [{ group: packages.flatMap((name) => [`@masthead/${name}`, `@masthead/${name}/*`]), message }] : []),
    ],
  },
];

/**
 * The dependency rules (ADR 0101), by path too, so that a relative import cannot get round the
 * package-name rule: a service reaches another service only over gRPC, and libraries serve
 * deployables, never the reverse.
 */
const restrictedPaths = [
  'error',
  {
    zones: [
      ...SERVICES.map((name) => ({
        target: `./services/${name}`,
        from: ['./services', './gateway'],
        except: [`./${name}`],
        message: 'A service calls another service over gRPC (its @masthead/proto client), never its code.',
      })),
      { target: './libs', from: ['./services', './gateway', './tests'], message: 'A library must not depend on a deployable.' },
    ],
  },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/src/gen/**', '.data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // Express recognises error handlers by their four parameters: `_next` must stay.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': restrictedPaths,
      'no-restricted-imports': importRules([], ''),
    },
  },
  // Dependency rules hold for sources and tests alike (ADR 0101).
  ...SERVICES.map((name) => ({
    files: [`services/${name}/**/*.ts`],
    plugins: { 'import-x': importX },
    rules: {
      'no-restricted-imports': importRules(
        DEPLOYABLES.filter((other) => other !== name),
        'A service calls another service over gRPC (its @masthead/proto client), never its code.',
      ),
      'import-x/no-restricted-paths': restrictedPaths,
    },
  })),
  {
    files: ['gateway/**/*.ts'],
    rules: {
      'no-restricted-imports': importRules(
        SERVICES,
        'The gateway calls the services over gRPC (@masthead/proto clients), never their code.',
      ),
    },
  },
  {
    files: ['libs/**/*.ts'],
    plugins: { 'import-x': importX },
    rules: {
      'no-restricted-imports': importRules(
        [...DEPLOYABLES, 'testkit'],
        'A library must not depend on a deployable or on the whole-stack test kit (tests/stack).',
      ),
      'import-x/no-restricted-paths': restrictedPaths,
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
);
