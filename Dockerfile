# The operator image: `docker build -t agent-deploy-operator:0.1.0 .`
# Development runs the TypeScript sources directly (Node's type stripping). The image runs them as
# JavaScript, with the types erased ahead of time by `tsc -p tsconfig.build.json` (relative `.ts` imports
# rewritten to `.js`): Node then never loads its type stripper, which stays resident once loaded
# (≈ 28 MB of RSS; README, Performance).

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# Every dependency to build (no install scripts run: the `node` package that runs development on Node 24
# stays inert, and the base image's Node 24 runs tsc), then only the production ones are kept.
RUN npm ci --ignore-scripts --no-audit --no-fund && npx tsc -p tsconfig.build.json && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-slim
# OCI annotations (https://specs.opencontainers.org/image-spec/annotations/). The version is package.json's
# (test/dockerfile.test.ts checks it); the commit and build time come from the build:
#   docker build --build-arg REVISION=$(git rev-parse HEAD) --build-arg CREATED=$(date -u +%FT%TZ) .
ARG REVISION=""
ARG CREATED=""
LABEL org.opencontainers.image.title="agent-deploy-operator" \
      org.opencontainers.image.description="Kubernetes operator for agent deployments on the Deployment and Authorization Service" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="docker.io/library/node:24-slim" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
# Running needs only node: npm, npx, corepack and yarn go, and with them their dependencies.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
WORKDIR /app
ENV NODE_ENV=production
# A small young generation and a capped old space (README, Performance), within the 384Mi limit of
# deploy/deployment.yaml. Override NODE_OPTIONS to tune.
ENV NODE_OPTIONS="--max-semi-space-size=1 --max-old-space-size=256"
# glibc's allocator, told to keep few arenas and to give large buffers (list pages, TLS records) back to
# the system when freed instead of keeping them in fragmented arenas: 15 MB less peak RSS at 5,000
# resources (README, Performance). npm run bench and soak run the operator with these same lines.
ENV MALLOC_ARENA_MAX=2
ENV MALLOC_MMAP_THRESHOLD_=131072
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json ./
COPY crds ./crds
# The distroless "nonroot" uid; files stay root-owned, so the process cannot change its own code.
USER 65532:65532
EXPOSE 8081
ENTRYPOINT ["node", "dist/cli/main.js", "operator"]
