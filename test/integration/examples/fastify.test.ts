// examples/fastify, started as its README says (tsx src/server.ts) with the real Fastify.
import { describeMountedExample } from "./mounted.js";

describeMountedExample("fastify");
