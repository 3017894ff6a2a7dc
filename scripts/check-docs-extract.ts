/**
 * Find the TypeScript code blocks of a Markdown page: every fenced block whose info string starts with `ts` or
 * `typescript`, with the hidden context a page may give it in an HTML comment right before the fence:
 *
 *     <!-- ts-preamble: declare const engine: Engine; -->   (prepended, unseen by readers; may span lines)
 *     <!-- ts-skip: why this block cannot compile -->       (not checked; keep these rare)
 *
 * A block whose first line is a file-name comment (`// books.controller.ts`) is written under that name, so the
 * other blocks of the same page can import it (`import { BooksController } from './books.controller'`).
 */

/** One TypeScript block of a page. */
export interface Snippet {
  /** The page, as given (e.g. `docs/http.md`). */
  readonly page: string;
  /** 1-based line of the block's first code line in the page. */
  readonly line: number;
  readonly code: string;
  /** Hidden context from a `ts-preamble` comment; '' when there is none. */
  readonly preamble: string;
  /** The file name from a leading `// name.ts` comment, else undefined. */
  readonly fileName?: string | undefined;
  /** The reason from a `ts-skip` comment: the block is not checked. */
  readonly skip?: string | undefined;
}

const FENCE = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/;
const CHECKED = new Set(['ts', 'typescript']);
const FILE_NAME = /^\/\/\s*([\w.-]+\.tsx?)\s*$/;

/** Extract every `ts`/`typescript` block of one Markdown page, with its preamble or skip reason. */
export function extractSnippets(page: string, markdown: string): Snippet[] {
  const lines = markdown.split(/\r?\n/);
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const fence = open[2]!;
    let end = i + 1;
    while (end < lines.length && !closes(lines[end]!, fence)) end++;
    const lang = open[3]!.toLowerCase();
    if (CHECKED.has(lang)) {
      // A fence indented in a list item: its lines carry the same indentation, which is not code.
      const body = lines.slice(i + 1, end).map((l) => l.replace(new RegExp(`^ {0,${indent}}`), ''));
      const code = body.join('\n');
      const comment = commentBefore(lines, i);
      const fileName = FILE_NAME.exec(body[0] ?? '')?.[1];
      out.push({
        page,
        line: i + 2,
        code,
        preamble: directive(comment, 'ts-preamble') ?? '',
        fileName,
        skip: directive(comment, 'ts-skip'),
      });
    }
    i = end;
  }
  return out;
}

function closes(line: string, fence: string): boolean {
  const trimmed = line.trimStart();
  return trimmed.startsWith(fence[0]!.repeat(fence.length)) && trimmed.replace(/[`~]+/, '').trim() === '';
}

/** The HTML comment that ends on the line right before line `i`, without its `<!--` and `-->`. */
function commentBefore(lines: readonly string[], i: number): string {
  let j = i - 1;
  if (j < 0 || !lines[j]!.trimEnd().endsWith('-->')) return '';
  while (j >= 0 && !lines[j]!.includes('<!--')) j--;
  if (j < 0) return '';
  const text = lines.slice(j, i).join('\n');
  return text.slice(text.lastIndexOf('<!--') + 4, text.lastIndexOf('-->')).trim();
}

/** The text after `name:` (or after `name` and a line break) when the comment is that directive. */
function directive(comment: string, name: string): string | undefined {
  if (!comment.startsWith(name)) return undefined;
  const rest = comment.slice(name.length);
  if (!/^[:\s]/.test(rest)) return undefined;
  return rest.replace(/^:?/, '').trim();
}
