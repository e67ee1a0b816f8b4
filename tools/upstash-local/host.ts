// A DNS-rebinding page reaches 127.0.0.1 under its own name, so the Host
// header tells a local client from a web page: only loopback names pass.

/** Whether a Host header value (name and optional port) names this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  if (!match) return false;
  const name = match[1]!.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (name === "[::1]") return true;
  return /^127(\.\d{1,3}){3}$/.test(name) && name.split(".").every((part) => Number(part) <= 255);
}
