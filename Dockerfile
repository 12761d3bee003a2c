# syntax=docker/dockerfile:1
# Lore as a container: `docker build -t lore .`, then `docker run -p 8787:8787 -v lore-data:/data lore`.
# Three stages: build (the workspace with dev dependencies, `npm run build` → dist/), deps (the
# production dependencies dist/package.json names, nothing else), runtime (dist/ + those, non-root).
# test/production/build.test.ts assembles the runtime stage's files from the COPY lines below and boots them.

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY --from=build /src/dist/package.json ./
RUN npm install --omit=dev --no-audit --no-fund --prefer-offline

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    LORE_HOST=0.0.0.0 \
    LORE_PORT=8787 \
    LORE_DATA_DIR=/data \
    MALLOC_ARENA_MAX=2 \
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=1048576
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist/ ./
RUN useradd --system --uid 10001 --home-dir /app lore \
    && mkdir -p /data /storage && chown lore /data /storage && chmod 700 /data /storage
USER lore
VOLUME /data
EXPOSE 8787
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.LORE_PORT || 8787) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "lore.mjs", "serve"]
