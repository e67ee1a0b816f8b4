// Vercel looks for functions in api/; the function itself lives in functions/vercel/.
// For the Edge runtime instead of Node, add: export const config = { runtime: "edge" };
export { GET, POST } from "../functions/vercel/example.js";
