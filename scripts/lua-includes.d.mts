export declare function includeOf(line: string): string | undefined;
export declare function librariesFor(
  roots: readonly string[],
  includesOf: (file: string) => readonly string[] | undefined,
  shipped?: Set<string>,
  from?: string,
): string[];
