// `npm run local`: the project's functions on this machine, no Vercel account
// needed, routed as Vercel routes them: /api/<name> to api/<name>.ts, else by
// vercel.json's rewrites, and a request to the function's export named for
// its method. `vercel dev` does the same in Vercel's own runtime.
import { existsSync, readFileSync } from "node:fs";
import { listen, stopOnSignals } from "tickq/node";

type Handler = (request: Request) => Response | Promise<Response>;
interface VercelJson {
  rewrites?: { source: string; destination: string }[];
}

const vercelJson = JSON.parse(readFileSync(new URL("vercel.json", import.meta.url), "utf8")) as VercelJson;

/** The function's file of an /api/<name> path; no other path names a file, so no request reaches one outside api/. */
function functionAt(path: string): URL | undefined {
  if (!/^\/api\/[\w-]+$/.test(path)) return undefined;
  const file = new URL(`.${path}.ts`, import.meta.url);
  return existsSync(file) ? file : undefined;
}

function route(pathname: string): URL | undefined {
  const rewrite = vercelJson.rewrites?.find((r) => new RegExp(`^${r.source}$`).test(pathname));
  return functionAt(pathname) ?? (rewrite && functionAt(rewrite.destination));
}

async function serve(request: Request): Promise<Response> {
  const file = route(new URL(request.url).pathname);
  if (!file) return Response.json({ error: "no function here" }, { status: 404 });
  const handler = ((await import(file.href)) as Record<string, Handler | undefined>)[request.method];
  return handler ? handler(request) : Response.json({ error: `${request.method} is not served here` }, { status: 405 });
}

const server = await listen(serve, Number(process.env.PORT ?? 3000));
console.log(`example: listening on ${server.url}`);
console.log(`  curl -X POST -d '{"email":"you@example.com"}' ${server.url}/api/signup`);
console.log(`  dashboard: ${server.url}/api/tickq/dashboard (log in with TICKQ_SECRET)`);
stopOnSignals(() => server.close());
