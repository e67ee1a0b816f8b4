// The scripts of child workflow runs (src/workflows/children.ts): note a child, read a parent's children.
import { scripts } from "../lua/index.js";
import { defineCall, key, list, number, text, tuple } from "./define.js";

export const workflow_child = defineCall(scripts.workflow_child, { kids: key }, { child: text }, number);

export const workflow_children = defineCall(
  scripts.workflow_children,
  { kids: key },
  {},
  tuple({ children: list(text) }),
);
