import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// State changes only through the domain's use cases (docs/architecture.md, "Use cases"): outside
// src/domain/ and src/store/, no file imports a repository function that writes or locks rows,
// nor opens a transaction. Writing functions are told apart by name: every repository function
// that inserts, updates, deletes or locks is named with one of these verbs (alone or followed
// by a capitalised word), which
// test/ci/write-guard.test.ts checks against the repositories' own queries.
const WRITING_VERBS =
  'insert|update|upsert|delete|set|write|touch|claim|reclaim|record|release|requeue|retire|' +
  'complete|take|transfer|purge|draw|refund|settle|postpone|finish|consume|end|apply|lock|add|make|' +
  'queue|debit|fold';
// Reads that lock rows (FOR UPDATE on PostgreSQL), so they belong inside a use case's transaction.
const LOCKING_READS = ['readUsageView'];

/** A restriction on writing repository functions, except the names given (an adapter's own). */
function writingImports(except = []) {
  const allowed = except.length === 0 ? '' : `(?!(${except.join('|')})$)`;
  return [
    'error',
    {
      patterns: [
        {
          regex: '(^|/)store/repositories/',
          importNamePattern: `^${allowed}((${WRITING_VERBS})([A-Z]|$)|(${LOCKING_READS.join('|')})$)`,
          message:
            'Writes go through a domain use case (src/domain/): outside src/domain/ and src/store/, call the use case instead of a writing repository function.',
        },
      ],
    },
  ];
}

const NO_TRANSACTIONS = [
  'error',
  {
    selector: "CallExpression[callee.property.name='transaction']",
    message:
      'Only the domain (and the store) opens transactions: call a use case of src/domain/ instead.',
  },
];

const RUNNER_OPENS_TRANSACTIONS = {
  selector: "CallExpression[callee.property.name='transaction']",
  message:
    'Only the runner opens a transaction: run the use case with runWrite, runUseCase or runProcess (src/domain/runner/use-case-runner.ts).',
};

// Rows stay in the store (docs/architecture.md, "Layers"): repositories take and return domain
// objects, so no file of src/domain/ names a column, whether as a property, a key or a string.
// The columns are the snake_case fields of the tables src/store/schema.ts declares, read from it,
// so a new column is covered as soon as it is declared. A column name that is also a value the
// domain owns (the ledger kind test_credit_expiry) is not a column use.
const DOMAIN_VALUES = new Set(['test_credit_expiry']);
const COLUMN_NAMES = [
  ...new Set(
    [
      ...readFileSync(new URL('./src/store/schema.ts', import.meta.url), 'utf8').matchAll(
        /^\s+([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\??:/gm,
      ),
    ].map((m) => m[1]),
  ),
]
  .filter((name) => !DOMAIN_VALUES.has(name))
  .sort();
const COLUMN_PATTERN = `/^(${COLUMN_NAMES.join('|')})$/`;
const COLUMN_MESSAGE =
  'A column name in the domain: rows stay in the store. Read and write through a repository that takes and returns domain objects (camelCase).';
const ROW_COLUMNS = [
  { selector: `Identifier[name=${COLUMN_PATTERN}]`, message: COLUMN_MESSAGE },
  { selector: `Literal[value=${COLUMN_PATTERN}]`, message: COLUMN_MESSAGE },
];
// Domain files that still read rows, each an exception until its rows move behind a repository
// that returns domain objects; a file leaves this list when it does, and no file joins it.
const ROWS_IN_DOMAIN_STILL = [
  // A snapshot is the tables themselves, by name; the API key column is re-encrypted in it.
  'src/domain/simulator/snapshot.ts',
  // The settings change is built as the organisation row's update, and its audit entry names the
  // columns it changed (an answer of `esim audit list` and the portal's activity page).
  'src/domain/organisations/organisation-changes.ts',
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'test/fixtures/lint-rules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  // The portal's one script runs in the browser.
  { files: ['src/portal/static/**/*.js'], languageOptions: { globals: globals.browser } },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // Type-aware rules: a promise nobody awaits loses its errors, and a switch over a closed union
  // must name every member. They need type information, so they run only on TypeScript files
  // (all of which tsconfig.json includes), from one program built once for the whole run.
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test tracks the promises its test(), describe() and it() return and reports their
      // failures itself, so leaving them unawaited loses nothing.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/domain/**', 'src/store/**', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': writingImports(),
      'no-restricted-syntax': NO_TRANSACTIONS,
    },
  },
  // One door to a write: inside the domain only the runner (src/domain/runner/) opens a
  // transaction; a use case runs through runWrite, runUseCase or runProcess. Rows stay in the
  // store: no domain file names a column (ROW_COLUMNS).
  {
    files: ['src/domain/**/*.ts'],
    ignores: ['src/domain/runner/**', 'src/**/*.test.ts', ...ROWS_IN_DOMAIN_STILL],
    rules: { 'no-restricted-syntax': ['error', RUNNER_OPENS_TRANSACTIONS, ...ROW_COLUMNS] },
  },
  {
    files: ['src/domain/runner/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ROW_COLUMNS] },
  },
  {
    files: ROWS_IN_DOMAIN_STILL,
    rules: { 'no-restricted-syntax': ['error', RUNNER_OPENS_TRANSACTIONS] },
  },
  // Adapters that stand in for another system keep that system's own rows, which are not the
  // service's state: the test processor its charges (payments.md), the simulated network its
  // SMS outbox, the outbox mailer the mail it would have sent (portal.md). Each may write those
  // rows and nothing else.
  {
    files: ['src/payments/test-processor.ts'],
    rules: {
      'no-restricted-imports': writingImports(['insertProcessorCharge', 'finishProcessorCharge']),
    },
  },
  {
    files: ['src/network/simulated-network.ts'],
    rules: { 'no-restricted-imports': writingImports(['insertSms']) },
  },
  // The outbox mailer stands in for an SMTP server: the mail it keeps is its own row.
  {
    files: ['src/mail/outbox-mailer.ts'],
    rules: { 'no-restricted-imports': writingImports(['insertMail']) },
  },
);
