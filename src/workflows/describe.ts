// Whatever a workflow threw, as a name and a message, defensively: a
// non-Error, or an object whose getters throw, still describes.
export function describeError(error: unknown): { name: string; message: string } {
  try {
    if (error instanceof Error) return { name: error.name || "Error", message: String(error.message).slice(0, 10_000) };
    return { name: "Error", message: String(error).slice(0, 10_000) };
  } catch {
    return { name: "Error", message: "(an error that could not be described)" };
  }
}
