// DBOS Transact under the peers bench: in this process, its system database a fresh one on the
// PostgreSQL at PG_URL (default 127.0.0.1:5432, fsync as that server has it), dropped after. Every
// run is a registered workflow started with DBOS.startWorkflow, whose steps are DBOS.runStep calls:
// each step's result is written to PostgreSQL before the next step starts.
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { databaseUrl } from "./servers.js";
import { checkSums, type WorkflowSystem } from "./workflow-system.js";

const tenSteps = DBOS.registerWorkflow(
  async (steps: number) => {
    let sum = 0;
    for (let i = 0; i < steps; i++) sum += await DBOS.runStep(async () => i, { name: `s${i}` });
    return sum;
  },
  { name: "tenSteps" },
);

/** The server's `fsync` and `synchronous_commit` settings, stated beside DBOS's row. */
async function durabilityOf(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const setting = async (name: string) => (await client.query(`SHOW ${name}`)).rows[0]?.[name] as string;
    return `PostgreSQL ${await setting("server_version")}: fsync ${await setting("fsync")}, synchronous_commit ${await setting("synchronous_commit")}`;
  } finally {
    await client.end();
  }
}

export async function dbosSystem(): Promise<WorkflowSystem> {
  const name = `tickq_peers_dbos_${process.pid}`;
  const url = databaseUrl(name);
  DBOS.setConfig({ name: "tickq-peers", systemDatabaseUrl: url, logLevel: "error" });
  await DBOS.launch();
  const durability = await durabilityOf(url);
  return {
    name: "DBOS",
    durability,
    async runMany(runs, steps) {
      const t = performance.now();
      const handles = await Promise.all(Array.from({ length: runs }, () => DBOS.startWorkflow(tenSteps)(steps)));
      const sums = await Promise.all(handles.map((h) => h.getResult()));
      const ms = performance.now() - t;
      checkSums("DBOS", sums, steps);
      return { ms };
    },
    async close() {
      await DBOS.shutdown();
      const admin = new pg.Client({ connectionString: databaseUrl("postgres") });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
