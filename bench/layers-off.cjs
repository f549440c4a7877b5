// Switches one layer of the service's request path off, for pricing it in the bench (never in the
// product): preloaded with `node --require ./bench/layers-off/<layer>.cjs`, so a run can price each
// layer as its own server, e.g.
//   npm run bench -- --node-options "<flags>;<flags> --require ./bench/layers-off/helmet.cjs"
// Each layer's middleware becomes a pass-through; what the rest of the service needs of it stays.
'use strict';
const Module = require('node:module');

const passThrough = () => (_request, _response, next) => next();

/** Per layer: which module it comes from (a package name, or the end of a path in dist/), and its stub. */
const LAYERS = {
  helmet: {
    matches: (request) => request === 'helmet',
    stub: () => Object.assign(passThrough, { default: passThrough }),
  },
  compression: {
    matches: (request) => request === 'compression',
    stub: () => Object.assign(passThrough, { default: passThrough }),
  },
  // pino-http: no request line, no request id; `req.log` stays the root logger so that Nest's logger works.
  logging: {
    matches: (request) => request === 'pino-http',
    stub: () => {
      const pinoHttp = ({ logger }) => {
        const middleware = (request, _response, next) => {
          request.log = logger;
          next?.();
        };
        return Object.assign(middleware, { logger });
      };
      return { pinoHttp, default: pinoHttp };
    },
  },
  metrics: {
    matches: (request) => request.endsWith('/metrics/http-metrics'),
    stub: (real) => ({ ...real, createHttpMetricsMiddleware: passThrough }),
  },
  // The relay each write asks for once answered: events wait for the events job's next second instead.
  relay: {
    matches: (request) => request.endsWith('/events/relay-after-writes'),
    stub: (real) => ({ ...real, relayAfterWrites: passThrough }),
  },
};

const switchedOff = new Set();
const load = Module._load;
Module._load = function loadWithLayersOff(request, parent, isMain) {
  const real = load.call(this, request, parent, isMain);
  for (const name of switchedOff) if (LAYERS[name].matches(request)) return LAYERS[name].stub(real);
  return real;
};

/** Switches `layer` off for the modules loaded from now on. */
module.exports = function switchOff(layer) {
  if (!(layer in LAYERS)) throw new Error(`bench/layers-off.cjs: unknown layer ${layer}`);
  switchedOff.add(layer);
};
module.exports.LAYERS = Object.keys(LAYERS);
