# syntax=docker/dockerfile:1
#
# One image for all four services. SERVICE (gateway | translator | nli | worker) picks the one to run:
#   docker build --build-arg SERVICE=translator -t tp-translator .
# It can also be overridden at run time (-e SERVICE=nli), since every service's dist/ is in the image.
#
# The same image runs the one-shot setup (create database + migrations, then Kafka topics), e.g.
# `docker compose run --rm setup`, whose command is:
#   sh -c "node infra/db/dist/migrate.cli.js up && node libs/kafka/dist/create-topics.cli.js"

# ---- manifests: package.json files only, so install layers are cached until a manifest changes ----
FROM node:24-bookworm-slim AS manifests
WORKDIR /app
# .npmrc sets onnxruntime-node-install=skip; it must be in place before installing.
COPY package.json package-lock.json .npmrc ./
COPY contracts/package.json contracts/
COPY schemas/package.json schemas/
COPY libs/runtime/package.json libs/runtime/
COPY libs/kafka/package.json libs/kafka/
COPY libs/redis/package.json libs/redis/
COPY libs/db/package.json libs/db/
COPY libs/translation/package.json libs/translation/
COPY libs/platform/package.json libs/platform/
COPY services/gateway/package.json services/gateway/
COPY services/translator/package.json services/translator/
COPY services/nli/package.json services/nli/
COPY services/worker/package.json services/worker/
COPY infra/db/package.json infra/db/
COPY tools/models/package.json tools/models/
# The test harness workspace is listed in the root workspaces; its packages are dev-only.
COPY test/package.json test/

# ---- build: all dependencies, then tsc -b (src/ -> dist/ for every package) ----
FROM manifests AS build
# Dev dependencies included; the root devDependency `node` fetches its binary from the npm registry here.
RUN --mount=type=cache,target=/root/.npm npm install --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY contracts/ contracts/
COPY schemas/ schemas/
COPY libs/ libs/
COPY services/ services/
COPY infra/db/ infra/db/
COPY tools/ tools/
RUN npx tsc -b tsconfig.build.json
# The tiny zh-CN -> en test model, so the offline engine works out of the box (docs/models.md).
RUN node tools/models/dist/build-tiny.cli.js --out var/models/opus-mt-zh-en-tiny

# ---- runtime: production dependencies + compiled output ----
FROM manifests AS runtime
ENV NODE_ENV=production HOST=0.0.0.0
# Workspace package.json files are present (manifests stage), so node_modules/@tp/* symlinks resolve.
RUN --mount=type=cache,target=/root/.npm npm install --omit=dev --no-audit --no-fund
COPY --from=build /app/contracts/dist contracts/dist
COPY --from=build /app/schemas/dist schemas/dist
# Read at runtime from schemas/dist via ../avro/.
COPY --from=build /app/schemas/avro schemas/avro
COPY --from=build /app/libs/runtime/dist libs/runtime/dist
COPY --from=build /app/libs/kafka/dist libs/kafka/dist
COPY --from=build /app/libs/redis/dist libs/redis/dist
COPY --from=build /app/libs/db/dist libs/db/dist
COPY --from=build /app/libs/translation/dist libs/translation/dist
COPY --from=build /app/libs/platform/dist libs/platform/dist
COPY --from=build /app/services/gateway/dist services/gateway/dist
COPY --from=build /app/services/gateway/console/public services/gateway/console/public
COPY --from=build /app/services/gateway/console/dist services/gateway/console/dist
COPY --from=build /app/services/translator/dist services/translator/dist
COPY --from=build /app/services/nli/dist services/nli/dist
COPY --from=build /app/services/worker/dist services/worker/dist
COPY --from=build /app/infra/db/dist infra/db/dist
COPY --from=build /app/tools/models/dist tools/models/dist
# Real models: mount a volume here and run models:pull (see docs/models.md).
COPY --from=build /app/var/models var/models

ARG SERVICE=gateway
ENV SERVICE=${SERVICE}
# gateway 3000, translator 3004, nli 3005, worker 3006 (health and metrics only).
EXPOSE 3000 3004 3005 3006
USER node

# No curl in slim images: node's fetch. PORT if set, else the service's default port.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const port = process.env.PORT || { gateway: 3000, translator: 3004, nli: 3005, worker: 3006 }[process.env.SERVICE]; fetch('http://127.0.0.1:' + port + '/health', { signal: AbortSignal.timeout(3000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1));"]

# exec: node replaces the shell, so SIGTERM reaches it (graceful shutdown). --import preloads the
# OpenTelemetry instrumentations (pg, redis, outgoing fetch) before the service's first import.
CMD ["sh", "-c", "exec node --import @tp/runtime/instrument --enable-source-maps --disable-warning=TimeoutNegativeWarning services/${SERVICE}/dist/main.js"]
