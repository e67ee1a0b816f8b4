// examples/express, started as its README says (tsx src/server.ts) with the real Express.
import { describeMountedExample } from "./mounted.js";

describeMountedExample("express");
