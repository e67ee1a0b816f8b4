// The trigger both dropping proxies share: armed by a caller who waits for
// one drop, claimed by the proxy at the next request it may drop, fired
// once that reply has been thrown away.
export interface DropTrigger {
  /** Resolves true once a reply was dropped, false after timeoutMs. */
  arm(timeoutMs: number): Promise<boolean>;
  /** True, and disarmed, if armed: the proxy drops this request's reply. */
  claim(): boolean;
  /** The claimed reply was dropped. */
  fired(): void;
  dropped(): number;
}

export function dropTrigger(): DropTrigger {
  let armed = false;
  let dropped = 0;
  let onDrop: (() => void) | undefined;
  return {
    arm: (timeoutMs) =>
      new Promise<boolean>((resolve) => {
        armed = true;
        const timer = setTimeout(() => {
          armed = false;
          onDrop = undefined;
          resolve(false);
        }, timeoutMs);
        onDrop = () => {
          clearTimeout(timer);
          onDrop = undefined;
          resolve(true);
        };
      }),
    claim: () => {
      if (!armed) return false;
      armed = false;
      return true;
    },
    fired: () => {
      dropped++;
      onDrop?.();
    },
    dropped: () => dropped,
  };
}
