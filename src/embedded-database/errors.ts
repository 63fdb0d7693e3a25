import { relative } from 'node:path';

/** A reason the embedded database cannot start, in one line for the person who ran the command. */
export class EmbeddedDatabaseError extends Error {}

/** A path as the person who ran the command sees it: relative to where they are when inside it. */
export function displayPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown && !shown.startsWith('..') ? shown : path;
}

/** The last lines of a program's output, for a one-line refusal. */
export function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' ');
}
