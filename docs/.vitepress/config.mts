// The docs site: VitePress builds docs/ into docs/.vitepress/dist. A dead
// link between pages fails the build, so `npm run docs:build` is the link check.
import { defineConfig } from "vitepress";

export default defineConfig({
  title: "tickq",
  description: "Reliable background jobs for serverless TypeScript on Redis, with no long-lived worker process.",
  cleanUrls: true,
  // under tmp/, which git ignores, like every other build output
  outDir: "../tmp/docs-site",
  cacheDir: "../tmp/docs-cache",
  lastUpdated: false,
  themeConfig: {
    search: { provider: "local" },
    outline: [2, 3],
    sidebar: [
      {
        text: "Start",
        items: [
          { text: "Getting started", link: "/getting-started" },
          { text: "Concepts", link: "/concepts" },
          { text: "API", link: "/api" },
        ],
      },
      {
        text: "Guides",
        items: [
          { text: "Jobs and retries", link: "/guides/jobs" },
          { text: "Delayed jobs", link: "/guides/delayed" },
          { text: "Queues", link: "/guides/queues" },
          { text: "The jobs API", link: "/guides/jobs-api" },
          { text: "Results and awaiting a job", link: "/guides/results" },
          { text: "Cancelling a job", link: "/guides/cancel" },
          { text: "Recurring jobs", link: "/guides/recurring" },
          { text: "Ordered jobs by id", link: "/guides/ordered" },
          { text: "Durable workflows", link: "/guides/workflows" },
          { text: "Flow control", link: "/guides/flow-control" },
          { text: "Long jobs and deadlines", link: "/guides/long-jobs" },
          { text: "Kick and fan-out", link: "/guides/kick-fan-out" },
          { text: "Events", link: "/guides/events" },
          { text: "Failures", link: "/guides/failures" },
          { text: "Testing your jobs and workflows", link: "/guides/testing" },
          { text: "Beside Ruby Sidekiq", link: "/guides/sidekiq" },
        ],
      },
      {
        text: "Deploy",
        items: [
          { text: "Cloudflare Workers", link: "/deploy/cloudflare" },
          { text: "Vercel", link: "/deploy/vercel" },
          { text: "Node", link: "/deploy/node" },
          { text: "Bun", link: "/deploy/bun" },
          { text: "Deno", link: "/deploy/deno" },
          { text: "AWS Lambda", link: "/deploy/lambda" },
          { text: "Netlify", link: "/deploy/netlify" },
          { text: "Express", link: "/deploy/express" },
          { text: "Fastify", link: "/deploy/fastify" },
          { text: "Next.js", link: "/deploy/nextjs" },
          { text: "The HTTP app", link: "/deploy/http-app" },
          { text: "Upstash over HTTP", link: "/deploy/upstash-http" },
          { text: "Bundle sizes", link: "/deploy/bundles" },
        ],
      },
      {
        text: "Operate",
        items: [
          { text: "Secrets and access", link: "/operate/access" },
          { text: "Dashboard", link: "/operate/dashboard" },
          { text: "CLI", link: "/operate/cli" },
          { text: "Traces and logs", link: "/operate/telemetry" },
          { text: "Metrics", link: "/operate/metrics" },
          { text: "Redis keys", link: "/operate/redis-keys" },
          { text: "Running Redis", link: "/running-redis" },
          { text: "Redis Cluster: partitions", link: "/operate/cluster" },
          { text: "A local Upstash", link: "/operate/upstash-local" },
        ],
      },
      {
        text: "Reliability",
        items: [
          { text: "Guarantees", link: "/guarantees" },
          { text: "Clocks and fences", link: "/clocks-and-fences" },
          { text: "The fault suite", link: "/fault-suite" },
          { text: "Benchmarks", link: "/benchmarks" },
        ],
      },
      {
        // generated from the TSDoc by `npm run docs:reference` (TypeDoc), which docs:build runs first
        text: "Reference",
        collapsed: true,
        items: [
          { text: "Overview", link: "/reference/" },
          { text: "tickq", link: "/reference/tickq/" },
          { text: "tickq/adapters/ioredis", link: "/reference/tickq/adapters/ioredis/" },
          { text: "tickq/adapters/upstash", link: "/reference/tickq/adapters/upstash/" },
          { text: "tickq/adapters/rest", link: "/reference/tickq/adapters/rest/" },
          { text: "tickq/adapters/node-redis", link: "/reference/tickq/adapters/node-redis/" },
          { text: "tickq/cron", link: "/reference/tickq/cron/" },
          { text: "tickq/app", link: "/reference/tickq/app/" },
          { text: "tickq/cloudflare", link: "/reference/tickq/cloudflare/" },
          { text: "tickq/vercel", link: "/reference/tickq/vercel/" },
          { text: "tickq/node", link: "/reference/tickq/node/" },
          { text: "tickq/dashboard", link: "/reference/tickq/dashboard/" },
        ],
      },
      {
        text: "Internals",
        items: [
          { text: "The tick's lifecycle", link: "/internals/tick-lifecycle" },
          { text: "Cost in round trips", link: "/internals/round-trips" },
          { text: "Source layout", link: "/internals/layout" },
          { text: "The Lua protocol", link: "/internals/lua-protocol" },
          { text: "Lua libraries", link: "/internals/lua-libraries" },
          { text: "Known issues", link: "/internals/known-issues" },
        ],
      },
    ],
  },
});
