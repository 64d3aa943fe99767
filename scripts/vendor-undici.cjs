// What dist/vendor/undici.cjs holds for `import ... from 'undici'` (scripts/build.mjs): the
// names of undici's public API that lic uses (src/client/undici.ts), each required from the
// module undici's own index.js takes it from, and no more. The index requires every
// dispatcher, fetch, WebSocket, the mock and cache layers (bench/startup.md), where a request
// needs the Agent and the request API; test/cli/startup-guard.test.ts checks what loads. A
// name src/ imports from 'undici' must be listed here (the build fails when one is missing),
// and a path undici moves fails the build, not a user's request.
'use strict';
const Dispatcher = require('undici/lib/dispatcher/dispatcher');

// what undici's index does at load: request(), connect() (the proxy agent's CONNECT tunnel),
// stream() ... as methods of every dispatcher
Object.assign(Dispatcher.prototype, require('undici/lib/api'));

module.exports = {
  Dispatcher,
  Agent: require('undici/lib/dispatcher/agent'),
  // required on first use: most runs have no proxy
  get EnvHttpProxyAgent() {
    return require('undici/lib/dispatcher/env-http-proxy-agent');
  },
};
