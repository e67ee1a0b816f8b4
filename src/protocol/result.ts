// result.lua: an awaited job's outcome record and a running job's last progress.
import { scripts } from "../lua/index.js";
import { defineCall, key, maybe, tuple, value } from "./define.js";

export const result = defineCall(
  scripts.result,
  { result: key, progress: key },
  {},
  tuple({ record: maybe(value), progress: maybe(value) }),
);
