# syntax=docker/dockerfile:1
# For teams with a container engine. The released image is assembled without one, reproducibly,
# by `npm run image` (tools/image/, docs/image.md): same Node.js version, same /app layout,
# entrypoint, command, numeric user, working directory and ports (a unit test keeps them equal).
# What differs: that image holds only node, the shared libraries it loads (pinned Debian 12
# packages) and /etc/passwd, with no shell, npm or package manager and no `vcsync` link on PATH,
# and its bytes (hence its digest) follow from its inputs alone; this one is node:*-bookworm-slim
# with whatever that tag holds on the day it is built.
#
# One Node for both stages, pinned to a release: isolated-vm's native addon (the prebuilt one its
# package ships for Node 22 and 24, else compiled by its install script) must fit that Node. Bump it on purpose, with
# tools/image/image-inputs.mjs (and, in your registry, pin it by digest too:
# FROM node:<version>-bookworm-slim@sha256:<digest>).
ARG NODE_VERSION=22.23.3

# Build stage: installs the dependencies (isolated-vm compiles only where no prebuilt addon fits) and builds the TypeScript.
FROM node:${NODE_VERSION}-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# npm ci runs the approved install script of isolated-vm (package.json allowScripts) and the
# `prepare` script, which builds dist/.
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: no compiler, no dev dependencies, not root.
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY config ./config
RUN ln -s /app/dist/cli/main.js /usr/local/bin/vcsync && chmod +x /app/dist/cli/main.js
# By number, not name: the kubelet refuses runAsNonRoot for an image whose user is a name ("cannot
# verify user is non-root"). 1000:1000 is the node image's `node` user; config/deploy/sidecar.yaml
# sets the same runAsUser/runAsGroup.
USER 1000:1000
# Metrics and health (config/deploy/sidecar.yaml sets --listen-metrics 0.0.0.0:9180), and the
# management API (--listen-management 0.0.0.0:9443). No HEALTHCHECK: Kubernetes ignores it; the
# manifest's readiness and liveness probes (/readyz, /livez on 9180) do that job.
EXPOSE 9180 9443
# No --no-node-snapshot: only the patch sandbox's worker processes load isolated-vm, and vcsync
# forks them with it (docs/adr/0050).
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["start"]
