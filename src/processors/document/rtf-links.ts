/**
 * RTF fields that read a file, taken out of the copy LibreOffice opens. Measured: an RTF
 * `{\field{\*\fldinst INCLUDEPICTURE "file:///..."}}` (or a bare path) is read while LibreOffice imports
 * the file and its pixels are drawn in the PDF, even with the profile's link blocking on; the field's cached
 * result (`\fldrslt`) is what remains. The instruction is read as LibreOffice's tokenizer builds it (text
 * of nested groups, `\'hh` and `\uN` characters with their fallbacks skipped, `\binN` data passed over) and
 * compared by its letters alone, so spaces, quotes or splitting the word do not hide it. The scan is one
 * pass; each character is appended to at most one instruction, and an instruction is read up to its first
 * few dozen letters.
 */

/** Field instructions that include or link another file (Word's field reference); matched as prefixes. */
const FILE_FIELDS = ['INCLUDE', 'IMPORT', 'LINK', 'DDE', 'DATABASE', 'RD', 'AUTOTEXT', 'GLOSSARY'];
/** Characters scanned between two turns of the event loop. */
const CHARACTERS_PER_TURN = 2_000_000;
/** Letters enough to know an instruction's field name. */
const INSTRUCTION_CAP = 64;

interface Group {
  start: number;
  /** `\ucN`: how many fallback characters follow a `\uN`. */
  uc: number;
  /** The nearest group, this one or an ancestor, whose `\fldinst` text this group's text belongs to. */
  collector: Group | undefined;
  /** Set when `\fldinst` appears in this group: its instruction so far. */
  instruction: string | undefined;
}

const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** The RTF without file-reading field instructions, and how many went. */
/** `signal` stops a long scan (the job's abort or its time budget) at its next turn. */
export async function dropRtfFileFields(
  rtf: Buffer,
  signal?: AbortSignal,
): Promise<{ data: Buffer; dropped: number }> {
  const s = rtf.toString('latin1');
  const stack: Group[] = [];
  const ranges: [number, number][] = [];
  let skip = 0; // fallback characters still to skip after a \uN
  const append = (text: string) => {
    if (skip > 0) {
      skip--;
      return;
    }
    const collector = stack.at(-1)?.collector;
    if (collector?.instruction !== undefined && collector.instruction.length < INSTRUCTION_CAP)
      collector.instruction += text;
  };
  let i = 0;
  let turn = CHARACTERS_PER_TURN;
  while (i < s.length) {
    // 10 ms a megabyte: a large RTF gives the event loop a turn now and then.
    if (i >= turn) {
      turn = i + CHARACTERS_PER_TURN;
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    }
    const c = s.charCodeAt(i);
    if (c === 0x7b /* { */) {
      const parent = stack.at(-1);
      stack.push({ start: i, uc: parent?.uc ?? 1, collector: parent?.collector, instruction: undefined });
      skip = 0;
      i++;
    } else if (c === 0x7d /* } */) {
      const group = stack.pop();
      skip = 0;
      i++;
      if (group?.instruction === undefined) continue;
      if (readsAFile(group.instruction)) {
        ranges.push([group.start, i]);
        continue;
      }
      // A kept inner instruction is part of the outer one's text, as the tokenizer reads it.
      const outer = stack.at(-1)?.collector;
      if (outer?.instruction !== undefined)
        outer.instruction = (outer.instruction + group.instruction).slice(0, INSTRUCTION_CAP);
    } else if (c === 0x5c /* \ */) {
      const next = s.charCodeAt(i + 1);
      if (isLetter(next)) {
        let end = i + 1;
        while (end < s.length && isLetter(s.charCodeAt(end))) end++;
        const word = s.slice(i + 1, end);
        let after = end;
        if (s[after] === '-') after++;
        while (after < s.length && isDigit(s.charCodeAt(after))) after++;
        const parameter = Number(s.slice(end, after)) || 0;
        if (s[after] === ' ') after++;
        i = after;
        const group = stack.at(-1);
        if (word === 'bin') i += Math.max(0, parameter);
        else if (word === 'fldinst' && group !== undefined) {
          group.instruction = '';
          group.collector = group;
        } else if (word === 'uc' && group !== undefined) group.uc = Math.max(0, parameter);
        else if (word === 'u') {
          append(String.fromCharCode(parameter & 0xffff));
          skip = group?.uc ?? 1;
        } else if (skip > 0) skip--;
      } else if (next === 0x27 /* ' */) {
        append(String.fromCharCode(Number.parseInt(s.slice(i + 2, i + 4), 16) || 0));
        i += 4;
      } else {
        // A control symbol: \\ \{ \} are the characters themselves.
        if (next === 0x5c || next === 0x7b || next === 0x7d) append(s[i + 1]!);
        else if (skip > 0) skip--;
        i += 2;
      }
    } else {
      if (c !== 0x0d && c !== 0x0a) append(s[i]!);
      i++;
    }
  }
  // A group left open at the end still ends there for the tokenizer.
  for (const group of stack) {
    if (group.instruction !== undefined && readsAFile(group.instruction))
      ranges.push([group.start, s.length]);
  }
  if (ranges.length === 0) return { data: rtf, dropped: 0 };
  let out = '';
  let at = 0;
  for (const [start, end] of ranges.sort((a, b) => a[0] - b[0])) {
    if (end <= at) continue;
    out += s.slice(at, Math.max(at, start));
    at = end;
  }
  return { data: Buffer.from(out + s.slice(at), 'latin1'), dropped: ranges.length };
}

/** The field named by the instruction's letters, spaces, quotes and fallbacks aside. */
function readsAFile(instruction: string): boolean {
  let letters = '';
  for (const char of instruction) if (isLetter(char.charCodeAt(0))) letters += char.toUpperCase();
  return FILE_FIELDS.some((field) => letters.startsWith(field));
}
