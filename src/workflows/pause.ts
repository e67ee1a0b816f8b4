// A poll's wait (step.invoke's job, step.invokeWorkflow's child): `ms`, or
// until the step's signal aborts. The abort listener goes when the timer
// fires: a step that polls many times would otherwise pile one up per poll
// on its signal (Node's MaxListenersExceededWarning past 10).
export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const onAbort = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve()), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
