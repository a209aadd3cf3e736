// The dependency rules of the layers (docs/architecture.md, "Rules the CI enforces"), checked by
// `npm run depcheck`, which `.ci/run` runs. A rule that the tree does not yet keep everywhere
// lists each current breach as a named exception: new breaches fail, and an exception is deleted
// as soon as the code it names is moved.

// The surfaces that import the store, each for its machinery rather than a noun (docs/architecture.md,
// "Read paths"): which files, which store modules, and why. Every other read of a surface goes
// through the domain.
const SURFACE_STORE_EXCEPTIONS = [
  {
    name: 'busy-errors',
    reason:
      "The database's 'not now' errors told apart from the others (SQLite busy; PostgreSQL's conflicts, connection shortages and ended statements after their retries): the HTTP API and the portal answer them 503, the CLI says so.",
    from: ['src/http/error-handler.ts', 'src/portal/error-page.ts', 'src/cli/main.ts'],
    to: ['sqlite-busy.ts', 'conflicts.ts'],
  },
  {
    name: 'readiness',
    reason: '/readyz asks the database itself whether it answers (ping): no noun is read.',
    from: ['src/http/routes/health.ts'],
    to: ['database.ts'],
  },
  {
    name: 'database-commands',
    reason:
      '`esim migrate` and `esim backup`/`restore` work on the database itself: they open and migrate it (checking and writing its production record, as a start does), take the server lock and copy, check and switch its files.',
    from: ['src/cli/commands/migrate.ts', 'src/cli/commands/backup.ts'],
    to: ['database.ts', 'server-lock.ts', 'sqlite-files.ts', 'service-mode.ts'],
  },
  {
    name: 'private-files',
    reason:
      '`esim sim export` writes a snapshot holding every API key in clear, as the store writes its own files: readable by this user only.',
    from: ['src/cli/commands/sim-snapshot.ts'],
    to: ['private-files.ts'],
  },
];

/** A path pattern matching exactly these files. */
const exactly = (paths) => `^(${paths.map((p) => p.replace(/[.]/g, '\\.')).join('|')})$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-not-surfaces',
      comment:
        'The domain is shared by every surface: it never imports the HTTP app, the CLI, a portal, Fastify or a Fastify plugin.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        path: [
          '^src/(http|cli|portal)/',
          '^src/app\\.ts$',
          '(^|/)node_modules/(fastify|@fastify/[^/]+)/',
        ],
      },
    },
    {
      name: 'domain-never-reaches-http',
      comment:
        "Nor through another module: no chain of imports, type-only ones included, leads from the domain to src/http (the callback body the outbox stores is the domain's, domain/callbacks/callback-body.ts; its wire schema is the HTTP layer's).",
      severity: 'error',
      from: { path: '^src/domain/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/(http|cli|portal)/', reachable: true },
    },
    {
      name: 'domain-by-noun',
      comment:
        'The domain is one folder per noun (docs/architecture.md, "The domain by noun"): no file lies loose in src/domain/.',
      severity: 'error',
      from: { path: '^src/domain/[^/]+$' },
      to: {},
    },
    {
      name: 'runner-below-nouns',
      comment:
        'The runner (how a use case runs, its transaction and Idempotency-Key) knows no noun: it imports only the error catalogue among the domain folders.',
      severity: 'error',
      from: { path: '^src/domain/runner/' },
      to: { path: '^src/domain/', pathNot: '^src/domain/(runner|errors)/' },
    },
    {
      name: 'errors-at-the-bottom',
      comment:
        'The error catalogue imports nothing of the service: every layer may raise its errors.',
      severity: 'error',
      from: { path: '^src/domain/errors/' },
      to: { path: '^src/', pathNot: '^src/domain/errors/' },
    },
    {
      name: 'store-up-one-door',
      comment:
        'The store names the domain through one file: store/domain-types.ts, which re-exports the types of domain/stored/types.ts (the domain objects repositories take and return, and the closed unions the schema stores). So imports from the store up to the domain are exactly one, type-only (store-not-domain-rules). A new type is added to those two files.',
      severity: 'error',
      from: { path: '^src/store/', pathNot: '^src/store/domain-types\\.ts$' },
      to: { path: '^src/domain/' },
    },
    {
      name: 'store-domain-types-only-stored',
      comment: 'store/domain-types.ts imports only domain/stored/types.ts of the domain.',
      severity: 'error',
      from: { path: '^src/store/domain-types\\.ts$' },
      to: { path: '^src/domain/', pathNot: '^src/domain/stored/types\\.ts$' },
    },
    {
      name: 'store-below-everything',
      comment:
        'The store imports nothing above the domain: no surface, worker or composition module.',
      severity: 'error',
      from: { path: '^src/store/', pathNot: '\\.test\\.ts$' },
      to: {
        path: ['^src/(http|cli|portal|workers)/', '^src/(app|main|deps|demo|demo-data)\\.ts$'],
      },
    },
    {
      name: 'domain-below-composition',
      comment:
        'The domain names no composition module (AppDeps, the app, main, the demo) and no worker: a use case says which dependencies it needs in its own types.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: ['^src/workers/', '^src/(app|main|deps|demo|demo-data)\\.ts$'] },
    },
    {
      name: 'domain-not-adapters',
      comment:
        'The domain declares the ports it needs (domain/network/network-adapter.ts, domain/money/payment-gateway.ts, domain/simulator/simulator.ts, domain/access/mail.ts); the adapters implement them and import the domain, never the reverse: no chain of imports, type-only ones included, leads from the domain to an adapter.',
      severity: 'error',
      from: { path: '^src/domain/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/(network|payments|callbacks|mail|metrics|rate-limits)/', reachable: true },
    },
    {
      name: 'adapters-below-surfaces',
      comment:
        'An adapter imports no surface, worker or composition module: what it shares with a surface (the callback headers the OpenAPI document names) lives in the adapter or the domain.',
      severity: 'error',
      from: {
        path: '^src/(network|payments|callbacks|mail|metrics|rate-limits)/',
        pathNot: '\\.test\\.ts$',
      },
      to: { path: ['^src/(http|cli|portal|workers)/', '^src/(app|main|deps|demo)\\.ts$'] },
    },
    {
      name: 'libraries-below-domain',
      comment:
        'What the domain calls below itself (src/security, the clock, the random source, the config, the server address) imports nothing but each other and the store.',
      severity: 'error',
      from: {
        path: '^src/(security/|(clock|random|config|server-address)\\.ts$)',
        pathNot: '\\.test\\.ts$',
      },
      to: {
        path: '^src/',
        pathNot: '^src/(security/|store/|(clock|random|config|server-address)\\.ts$)',
      },
    },
    {
      name: 'surfaces-read-through-domain',
      comment:
        'A surface (src/http, src/portal, src/cli) reads a noun through a domain function, never a repository (docs/architecture.md, "Read paths"): it imports nothing of src/store, type imports included, but for the exceptions of SURFACE_STORE_EXCEPTIONS. Tests may read the database to check what a request wrote.',
      severity: 'error',
      from: {
        path: '^src/(http|portal|cli)/',
        pathNot: ['\\.test\\.ts$', exactly(SURFACE_STORE_EXCEPTIONS.flatMap((e) => e.from))],
      },
      to: { path: '^src/store/' },
    },
    ...SURFACE_STORE_EXCEPTIONS.map((e) => ({
      name: `surface-store-exception-${e.name}`,
      comment: `${e.reason} These files import only ${e.to.join(', ')} of src/store.`,
      severity: 'error',
      from: { path: exactly(e.from) },
      to: { path: '^src/store/', pathNot: exactly(e.to.map((t) => `src/store/${t}`)) },
    })),
    {
      name: 'portal-not-http',
      comment:
        'The portal calls the domain, as the HTTP API does, and imports nothing of src/http (the app mounts the portal, and the home page borrows its HTML escaping).',
      severity: 'error',
      from: { path: '^src/portal/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'store-not-domain-rules',
      comment: 'The store may name domain types (import type) but runs no domain rule.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: {
        path: '^src/domain/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'sql-only-in-store',
      comment:
        'Only src/store builds SQL: elsewhere kysely may be imported for its types only. Tests may read the database to check what a request wrote.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/store/', '\\.test\\.ts$'] },
      to: { path: '(^|/)node_modules/kysely/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycle whose imports all survive compilation: load order must not matter.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-type-cycles',
      comment:
        'No import cycle through type imports either, except the one that exists today: each migration imports the dialect type from store/database.ts, which imports the migrations list.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/store/migrations/', '^src/store/database\\.ts$'] },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Resolve type-only imports too, so rules can tell them apart (dependencyTypesNot).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
  },
};
