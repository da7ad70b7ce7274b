'use strict';
// collectives is an ES module (its ranks use top-level await and worker threads that
// load ESM); require() gets this explanation instead of ERR_PACKAGE_PATH_NOT_EXPORTED.
const e = new Error(
  "collectives is an ES module and cannot be loaded with require(). Use `import { init } from 'collectives'` " +
    "(in a .mjs file, or with \"type\": \"module\" in your package.json), or `const { init } = await import('collectives')` from CommonJS.",
);
e.code = 'ERR_REQUIRE_ESM';
throw e;
