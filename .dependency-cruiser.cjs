/**
 * The layers of src/ and the way imports point (docs/architecture.md): `npm run lint:layers`.
 * A module imports only from its own layer or from layers below it; nothing imports src/web, and
 * src/web (the browser and edge build) imports only what runs outside Node.
 */
const { builtinModules } = require('node:module');

/** Node's built-in modules as dependency-cruiser names them (`fs`, `node:fs`), and installed packages. */
const nodeOnly = [`^(node:)?(${builtinModules.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`, '(^|/)node_modules/'];

/** Bottom to top: each layer may import the layers before it, never the layers after it. */
const layers = [
  ['errors', '^src/errors\\.ts$'],
  ['address', '^src/address/'],
  ['config', '^src/(config|plans)/'],
  ['tables', '^src/tables/'],
  ['feeds', '^src/feeds/'],
  ['enrichment', '^src/enrichment/'],
  ['engine', '^src/engine/'],
  ['blacklist', '^src/blacklist/'],
  ['records', '^src/records/'],
  ['store', '^src/store/'],
  ['http', '^src/http/'],
  ['update', '^src/update/'],
  ['cli', '^src/cli/'],
];

const layerRules = layers.slice(0, -1).map(([name, path], i) => {
  const above = layers.slice(i + 1);
  return {
    name: `layer-${name}`,
    comment: `${name} must not import ${above.map(([layer]) => layer).join(', ')}`,
    severity: 'error',
    from: { path },
    to: { path: above.map(([, layerPath]) => layerPath) },
  };
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle: the modules cannot be understood, tested or moved one at a time',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'tables-format-below-builder',
      comment: 'the table formats are read by the engine and the browser build: they import no source reader and no builder',
      severity: 'error',
      from: { path: '^src/tables/(format/|tableFiles\\.ts$)' },
      to: { path: '^src/tables/(sources|build)/' },
    },
    {
      name: 'tables-sources-below-builder',
      comment: 'the source readers feed the builder and never import it',
      severity: 'error',
      from: { path: '^src/tables/sources/' },
      to: { path: '^src/tables/build/' },
    },
    {
      name: 'table-builder-only-from-cli',
      comment: 'building tables is a command (build-tables, update): the service reads built tables, it never imports the builder',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(tables|cli|update|feeds/(sources|build))/|^src/feeds/rpkiValidation\\.ts$' },
      to: { path: '^src/tables/(sources|build)/' },
    },
    {
      name: 'feed-builder-only-from-update',
      comment:
        'reading and building feeds is the update command: the service reads built feed sets, it never imports the readers or the builder',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(feeds/(sources|build)/|feeds/rpkiValidation\\.ts$|update/|cli/)' },
      to: { path: '^src/feeds/(sources|build)/' },
    },
    {
      name: 'http-shared-steps-below-routers',
      comment:
        'the transport and the request steps every route shares (src/http/transport, src/http/request) know no router; the direct connections answer single lookups through their one handler module',
      severity: 'error',
      from: { path: '^src/http/(transport|request)/' },
      to: {
        path: '^src/http/(v1|admin|dashboard|legacy|operations|openapi)/',
        pathNot: '^src/http/(v1/singleLookups|operations/logger)\\.ts$',
      },
    },
    {
      name: 'store-backends-apart',
      comment: 'the embedded (SQLite) and shared (Redis) stores share only the interfaces and helpers of src/store/',
      severity: 'error',
      from: { path: '^src/store/(sqlite|redis)/' },
      to: { path: '^src/store/(sqlite|redis)/', pathNot: '^src/store/$1/' },
    },
    {
      name: 'store-backend-chosen-in-one-place',
      comment: 'only openStore.ts names a backend: the rest of the service sees the store interfaces',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/((sqlite|redis)/|openStore\\.ts$)' },
      to: { path: '^src/store/(sqlite|redis)/' },
    },
    {
      name: 'web-imports-browser-safe-layers',
      comment: 'src/web is bundled for browsers and edge runtimes: only the engine, address parsing, table formats and errors',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/(web/|engine/|address/|tables/format/|errors\\.ts$)' },
    },
    {
      name: 'web-no-node-modules',
      comment:
        'src/web runs outside Node: no node: built-ins, no npm packages, directly or through what it imports; uPlot (browser-only, bundled into the dashboard page) is the one exception',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { reachable: true, path: nodeOnly, pathNot: '(^|/)node_modules/uplot/' },
    },
    {
      name: 'nothing-imports-web',
      comment: 'src/web is an entry point of the browser build, not a library for the service',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/web/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'no-orphans',
      comment: 'a module nothing imports and that imports nothing is dead or forgotten',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: '\\.d\\.ts$' },
      to: {},
    },
  ],
  options: {
    // type-only imports count: a cycle through types is still a cycle for the reader
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.(md|html)$' },
  },
};
