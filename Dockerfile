# Blog service image: build with the full toolchain, run with pruned production dependencies only.
#
#   docker build -t blog-service .
#   docker run --rm -p 3000:3000 -e JWT_SECRET="$(openssl rand -base64 48)" blog-service
#
# Without DATABASE_URL the service keeps an embedded PGlite database under DATA_DIR (/app/data);
# mount a volume there to keep it: -v blog-data:/app/data. With DATABASE_URL=postgres://… it uses
# that server instead (see docker-compose.yml). Migrations run at start-up either way.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: compile TypeScript to dist/ ------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# Dependencies first, so this layer is reused until package.json / package-lock.json change.
# The only install script in the lock file (@parcel/watcher, a jest dependency) builds nothing
# unless asked to, so no compiler toolchain is needed here.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# Only what `nest build` reads (tsconfig.build.json compiles src/ alone; ormconfig.ts and test/
# are for the TypeORM CLI and jest, not for the service).
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# Without its source maps: Node runs without --enable-source-maps here, so it never reads them.
RUN npm run build && find dist -name '*.map' -delete

# ---- deps: production dependencies, less what Node never loads --------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app

# --ignore-scripts: no runtime dependency has an install script (pg is pure JavaScript, PGlite is
# WebAssembly), and the lock file's only one belongs to a dev tool. --omit=optional: the lock file's
# optional production packages are ts-node and TypeScript (an optional peer of TypeORM, for its CLI
# on .ts files) and pg-cloudflare (for Cloudflare Workers only).
# Then the files no require() reads: source maps, TypeScript sources and declarations, Markdown,
# TypeORM's browser build and the PGlite extensions the schema does not use (the wasm and data
# files stay). Pruned here, so the runtime stage copies the result and no layer keeps them.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
    && find node_modules -type f \( -name '*.map' -o -name '*.ts' -o -name '*.cts' -o -name '*.mts' -o -iname '*.md' \) -delete \
    && rm -rf node_modules/typeorm/browser node_modules/@electric-sql/pglite/dist/*.tar.gz

# ---- runtime -----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# V8 heap bounds (MB): old space 160 (the live heap under load is ~40 MB), young generation
# semi-spaces 16, chosen by measurement (docs/performance.md, "Memory"): 8 cost create a quarter of
# its CPU per request, 32 gained nothing for 45 MB more. Without bounds V8 sizes the heap from the
# host's memory and lets garbage pile up to ~400 MB RSS under load; with them the bench's peak RSS
# is ~190 MB. The k8s Deployment and `npm run start:prod` carry the same NODE_OPTIONS.
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=160 --max-semi-space-size=16" \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/data
WORKDIR /app

# Files stay owned by root, so the service cannot modify its own code or dependencies.
RUN mkdir -p /app/data && chown node:node /app/data
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

# The unprivileged user of the official Node image (uid 1000); it owns only /app/data.
USER node

EXPOSE 3000

# No curl in slim images: ask Node itself. /health/live answers 200 once the service listens
# (after migrations); the start period covers a first start of the embedded database.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]

# Exec form: node is PID 1 and receives SIGTERM itself; the app's shutdown hooks close the HTTP
# server and the database before exiting.
CMD ["node", "dist/main.js"]
