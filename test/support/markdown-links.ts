/*
 * The little of Markdown the documentation test needs: the links a reader can follow and the anchors GitHub gives
 * each heading. Code (fenced blocks and inline spans) is not prose: a link written inside it is an example, not a
 * link, and a `#` line inside a shell block is a comment, not a heading.
 */

export interface MarkdownLink {
  /** The link's target as written: `docs/store.md`, `store.md#partitions`, `#signed-thinking`, `https://…`. */
  target: string;
  /** The 1-based line the link starts on. */
  line: number;
}

const fence = /^\s*(```|~~~)/;

/** Each line of `text` with fenced code blocks blanked, so line numbers stay those of the file. */
function linesOutsideFences(text: string): string[] {
  let inFence = false;
  return text.split('\n').map((line) => {
    if (fence.test(line)) {
      inFence = !inFence;
      return '';
    }
    return inFence ? '' : line;
  });
}

/** The links of the prose of `text`, in order, with the line each starts on. */
export function markdownLinks(text: string): MarkdownLink[] {
  const prose = linesOutsideFences(text)
    .map((line) => line.replace(/`[^`]*`/g, ''))
    .join('\n');
  const links: MarkdownLink[] = [];
  // Link text may wrap onto the next line; a target never holds a space or a closing parenthesis here.
  for (const match of prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const line = prose.slice(0, match.index).split('\n').length;
    links.push({ target: match[1] as string, line });
  }
  return links;
}

/** The anchor GitHub makes of a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** Every anchor the headings of `text` give, a repeated heading numbered as GitHub numbers it (`-1`, `-2`…). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of linesOutsideFences(text)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1] as string);
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`);
  }
  return anchors;
}
