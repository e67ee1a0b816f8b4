import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

// tickq is linked from the checkout two folders up ("file:../.."): the bundler must see that far.
const checkout = join(dirname(fileURLToPath(import.meta.url)), "../..");

const config: NextConfig = {
  turbopack: { root: checkout },
  outputFileTracingRoot: checkout,
};

export default config;
