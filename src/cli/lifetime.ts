// A finished command exits at once, even if a --jobs module left handles
// open (a database pool, a Redis client): the CLI owns its process. Servers
// (serve, redis-http) say they keep running.
let serving = false;

export function keepRunning(): void {
  serving = true;
}

export function endProcess(code: number): void {
  process.exitCode = code;
  if (serving && code === 0) return;
  // Let stdout drain (a pipe may be asynchronous) before exiting.
  process.stdout.write("", () => process.exit(code));
}
