// A reference, not a queue: the same jobs from an in-memory array through a
// pool of `concurrency` slots refilled the moment one frees, no Redis. It
// shows what this machine's timers and the last, partly idle wave of jobs
// leave of the limit: the ceiling any queue can reach in the same run.
import { durationOf, jobCount, work, type Jobs } from "../jobs.js";
import type { System, SystemFactory } from "./types.js";

export const poolSystem: SystemFactory = async () => {
  const queue: number[] = [];
  return {
    name: "in-memory pool",
    async enqueue(jobs: Jobs) {
      for (let i = 0; i < jobCount(jobs); i++) queue.push(durationOf(jobs, i));
    },
    async drain(n, options = {}) {
      const todo = queue.splice(0, n);
      let next = 0;
      const slot = async () => {
        while (next < todo.length) await work(todo[next++]!);
      };
      await Promise.all(Array.from({ length: options.concurrency ?? 50 }, slot));
      return { roundTrips: 0 };
    },
    idle: (ms) => new Promise((r) => setTimeout(r, ms)),
    async close() {},
  } satisfies System;
};
