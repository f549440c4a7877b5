# Blog service image: build with the full toolchain, run with production dependencies only.
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
RUN npm run build

# ---- runtime -----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# V8 heap bounds (MB): old space 160 (the live heap under load is ~40 MB), young generation
# semi-spaces 8. Without them V8 sizes the heap from the host's memory and lets garbage pile up to
# ~400 MB RSS under load before compacting; with them the bench's peak RSS is ~170 MB at the same
# throughput (docs/performance.md, "Memory"); 200 connections posting 1 MiB bodies peaked at 227 MB.
# Raise the old space (NODE_OPTIONS in the Deployment) if the live heap grows.
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=160 --max-semi-space-size=8" \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app

# Production dependencies only. --ignore-scripts: no runtime dependency has an install script
# (pg is pure JavaScript, PGlite is WebAssembly), and the lock file's only one belongs to a dev tool.
# Files stay owned by root, so the service cannot modify its own code or dependencies.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force \
    && mkdir -p /app/data \
    && chown node:node /app/data

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
