# The same steps as .ci/run on a fresh machine: `npm ci`, `npm run build`; migrations run from the
# compose file's `migrate` service (`workspace-api migrate`), then the service starts.
# Node 24 is the Active LTS (Node 22 also works: --build-arg NODE_IMAGE=node:22-bookworm-slim);
# the code itself also runs on Node 20, which the development machines still use.
# No `# syntax=` line: BuildKit's built-in frontend reads `RUN --mount`, and fetching a frontend
# image would need Docker Hub before the build starts.
ARG NODE_IMAGE=node:24-bookworm-slim

# build: every dependency (TypeScript and esbuild included) to compile src/, migrations/ and seeds/
# into dist/, and to bundle the developer page's browser code into dist/ too (scripts/build-developer-page.ts).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# The npm workspace's manifest (the client package), which the lockfile names.
COPY packages/client/package.json ./packages/client/
# --ignore-scripts: no install script is needed to build (esbuild's and @scarf/scarf's are not),
# and saying so keeps npm 10 on Node 22 images identical. Optional dependencies stay in this
# stage: TypeScript 7's compiler and esbuild are native binaries that npm installs as optional
# dependencies (one per platform), so --omit=optional would leave `npm run build` without them.
# The embedded database's PostgreSQL binaries come along here and are thrown away with the stage.
# npm's configuration, when the registry is not directly reachable (a proxy, a mirror, a private
# registry), comes as build secrets, mounted for this one command and never stored in a layer:
# `npmrc` (read as npm's user config, beside the committed .npmrc) and `npm_ca` (a PEM file added
# to Node's trusted CAs, for a TLS-intercepting proxy). Both optional (docs/operating.md).
RUN --mount=type=secret,id=npmrc,target=/run/secrets/npmrc \
    --mount=type=secret,id=npm_ca,target=/run/secrets/npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && NPM_CONFIG_USERCONFIG=/run/secrets/npmrc npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# prod-deps: only the run-time dependencies, resolved from the same lockfile. --omit=optional: the
# embedded database's PostgreSQL binaries (optional dependencies) are for `npm start` on a laptop;
# the image always runs on DATABASE_URL (NODE_ENV=production refuses the embedded database).
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY packages/client/package.json ./packages/client/
# The same secrets as the build stage's `npm ci`.
RUN --mount=type=secret,id=npmrc,target=/run/secrets/npmrc \
    --mount=type=secret,id=npm_ca,target=/run/secrets/npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && NPM_CONFIG_USERCONFIG=/run/secrets/npmrc npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# runtime: compiled output and production node_modules, owned by root and run as `node`, so the
# process cannot rewrite its own code. No secret is set here: compose or the orchestrator passes them.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The operators' CLI as a command (`docker compose exec api workspace-api ...`); tsc does not keep
# the executable bit, and Node follows the symlink so the CLI's relative imports resolve in dist/.
RUN chmod 0755 dist/src/cli/main.js \
 && ln -s /app/dist/src/cli/main.js /usr/local/bin/workspace-api
USER node
EXPOSE 3000
# Node's own fetch, so the slim image needs no curl; PORT is read from the container's environment.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The service drains in-flight requests on SIGTERM (SHUTDOWN_TIMEOUT_MS) and exits 0.
STOPSIGNAL SIGTERM
# The same command as `npm run start:prod`. V8 lets its old space grow to about four times the
# live heap between collections; 1.5 times keeps the peak under 50 connections near 140 MB instead
# of 210 (docs/performance.md). A growth factor, not a cap: the heap still grows when it must.
# Node accepts this flag on the command line only, not in NODE_OPTIONS.
CMD ["node", "--heap-growing-percent=50", "dist/src/index.js"]
