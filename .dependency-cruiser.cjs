/**
 * The architecture in code (docs/architecture.md): a room imports only rooms on lower floors, and nothing imports
 * in a circle. `npm run lint:deps` runs these rules; CI fails on a new violation.
 */
const FLOORS = [
  ['domain', '^src/(domain/|config\\.ts|logger\\.ts|paths\\.ts)'],
  ['engines', '^src/(db|search|i18n|users|metrics|outbound|cache|kinds)/'],
  ['kernel', '^src/(core|http)/'],
  ['resources', '^src/resources/'],
  ['capabilities', '^src/(feeds|imports|integrations|ops|audit|mcp|publishing|embed)/'],
  ['composition', '^src/((app|server|routes)\\.ts$|cli/)'],
];

const upward = FLOORS.slice(0, -1).map(([name, path], i) => ({
  name: `no-upward-from-${name}`,
  comment: `The ${name} floor imports only lower floors.`,
  severity: 'error',
  from: { path },
  to: { path: FLOORS.slice(i + 1).map(([, higher]) => `(${higher})`).join('|') },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    ...upward,
    {
      name: 'core-has-no-express',
      comment: 'The service kernel knows nothing of HTTP: http/ sits beside it and uses it, never the reverse.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/http/|^node_modules/express' },
    },
    {
      name: 'only-handlers-see-requests',
      comment:
        'Below the handlers nothing sees a request: renderers, lists, caches, feeds and integrations take a Reader ' +
        '(core/reader.ts), made from a request by http/reader.ts or from configuration when there is none.',
      severity: 'error',
      from: { path: '^src/(resources|cache|feeds|integrations)/', pathNot: '/handlers\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'migrations-carry-what-they-need',
      comment: 'A migration means the same forever: it imports no live code (only Knex and the dialect helpers).',
      severity: 'error',
      from: { path: '^src/db/migrations/' },
      to: { path: '^src/', pathNot: '^src/db/(migrations/|types\\.ts|dialect\\.ts)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^generated/' },
  },
};
// the floors, for test/unit/architecture.test.ts (not a dependency-cruiser option: kept out of its schema)
Object.defineProperty(module.exports, 'FLOORS', { value: FLOORS, enumerable: false });
