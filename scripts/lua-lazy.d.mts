/** A part of an entry script: one of its libraries, or a run of its own lines. */
export type ScriptPart =
  | { lib: { file: string; name: string; text: string; eager: boolean }; [key: string]: unknown }
  | { own: string[]; [key: string]: unknown };
export declare function shaped<P extends ScriptPart>(parts: P[], file: string): (P & { text: string })[];
export declare function loadingUses(
  text: string,
  lazy: Map<string, { loader: string; extended?: string; bare?: boolean }>,
  where: string,
  own?: Set<string>,
): string;
