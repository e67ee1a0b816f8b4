// What `tickq dev` prints as work runs: one line per job run and per workflow step, a mark, the
// name, the id and the time or the error. Every text a user's code chose (names, messages) goes
// through printable(), so no control character reaches the terminal; colours only on a TTY
// (and never with NO_COLOR).
import { printable } from "../../printable.js";

const COLOURS = { ok: "\u001b[32m", fail: "\u001b[31m", dim: "\u001b[2m", info: "\u001b[36m" } as const;
const RESET = "\u001b[0m";

export type Tone = keyof typeof COLOURS;

export interface Lines {
  /** One line: a coloured mark, then words (escaped), then a dimmed detail. */
  write(tone: Tone, mark: string, words: string, detail?: string): void;
}

export function lines(out: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): Lines {
  const colour = out.isTTY === true && !env.NO_COLOR;
  const paint = (tone: Tone, text: string) => (colour ? `${COLOURS[tone]}${text}${RESET}` : text);
  return {
    write(tone, mark, words, detail) {
      const tail = detail === undefined ? "" : ` ${paint("dim", printable(detail))}`;
      out.write(`${paint(tone, mark)} ${printable(words)}${tail}\n`);
    },
  };
}

/** "12 ms" or "1.2 s". */
export const took = (ms: number) => (ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`);
