# One image build for every service; pick a service with --target (gateway, projector, ...).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json nx.json tsconfig.base.json tsconfig.json .swcrc ./
COPY libs libs
COPY services services
COPY infra infra
COPY proto proto
RUN npm ci --no-audit --no-fund \
 && NX_DAEMON=false npx nx run-many -t build \
 && npm prune --omit=dev

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app /app
USER node

# Health checks ask /ready: NATS (with JetStream), Postgres and Redis answer. /health stays the
# plain liveness answer for orchestrators that restart on it.
# Each service's V8 heap ceiling (NODE_OPTIONS, overridable): its steady state under load stays
# well inside it (docs/operations.md, "Memory", says how to size it and the container's limit).
FROM runtime AS gateway
ENV NODE_OPTIONS=--max-old-space-size=256
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=6 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "services/gateway/dist/main.js"]

# /metrics, /ready and /health on METRICS_PORT.
FROM runtime AS projector
ENV NODE_OPTIONS=--max-old-space-size=256
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=6 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.METRICS_PORT||9464)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "services/projector/dist/main.js"]

FROM runtime AS search
ENV NODE_OPTIONS=--max-old-space-size=256
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=6 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "services/search/dist/main.js"]

# The report CLI runs in the same image: docker compose exec analytics node services/analytics/dist/cli.js report
FROM runtime AS analytics
ENV NODE_OPTIONS=--max-old-space-size=256
EXPOSE 3002
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=6 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3002)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "services/analytics/dist/main.js"]
