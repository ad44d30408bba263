# syntax=docker/dockerfile:1
# The Platform API image (see docs/deployment.md): compiled in one stage with every dependency, run
# from another holding the production dependencies and dist/ only, as an unprivileged user.
#   docker build -t platform-api .
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://... -e SECRETS_KEY=... platform-api
# Every RUN works in WORKDIR with relative paths, so that CI can run these steps in a folder without a
# container engine (test/operating/image-steps.test.ts).

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY migrations ./migrations
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# DATA_DIR: the embedded PostgreSQL (when DATABASE_URL is unset), the generated secrets key and the
# file data lake; a volume, owned by the user the server runs as.
ENV NODE_ENV=production PORT=8080 DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY scripts/prepare-dist.js ./scripts/
COPY --from=build /app/dist ./dist
RUN mkdir -p data && chown 1000:1000 data
# The node image's `node` user, by number: Kubernetes' runAsNonRoot can check a number.
USER 1000:1000
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The server itself as process 1 (not npm): SIGTERM from `docker stop` reaches it and drains in-flight work.
CMD ["node", "--max-semi-space-size=32", "dist/src/main.js"]
