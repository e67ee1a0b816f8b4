// Credentials never reach a caller or a log: the user info of any URL
// (`rediss://default:PASSWORD@host`) and the values of known secrets are
// masked in whatever text is about to be shown. One helper, used wherever
// a Redis URL or an error is printed.

// Up to the last "@" before the host ends: a password may hold "@", and Redis clients split at the last one.
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'`]*)@/gi;

/** The URL without its password (or user), for logs and errors; text that is not a URL has any `//…@` masked. */
export function redactUrl(url: string): string {
  // Without "//" ("user:pass@host:6379", as ioredis takes it) a URL parser reads a scheme and a path, no user:
  // everything up to the last "@" before a path goes.
  if (!url.includes("//")) return url.replace(/^[^/?#\s]*@/, "***@");
  try {
    const parsed = new URL(url);
    if (!parsed.password && !parsed.username) return url;
    if (parsed.password) parsed.password = "***";
    else parsed.username = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^/?#\s]*@/, "//***@");
  }
}

/** `text` with every URL's password (or lone user) masked, and every one of `secrets` (8 characters or more) replaced by `***`. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  // As redactUrl does: a user name stays (`default:***@`), a lone token goes (`***@`).
  let out = text.replace(
    USER_INFO,
    (_match, scheme: string, info: string) =>
      `${scheme}${info.includes(":") ? `${info.slice(0, info.indexOf(":"))}:***` : "***"}@`,
  );
  for (const secret of secrets) if (secret && secret.length >= 8) out = out.split(secret).join("***");
  return out;
}
