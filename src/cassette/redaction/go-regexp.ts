/**
 * Go (RE2) regular expressions as JavaScript ones. The secret rules we adopt
 * are written for Go: they switch case-insensitivity on and off mid-pattern
 * (`(?i)`, `(?-i:…)`), use POSIX classes and `\z`. Node 20 has no inline
 * modifiers, so case-insensitive stretches are spelled out (`a` → `[aA]`).
 */

const POSIX: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  digit: '0-9',
  xdigit: '0-9A-Fa-f',
  lower: 'a-z',
  upper: 'A-Z',
  space: '\\t\\n\\v\\f\\r ',
  word: '\\w',
  punct: '!-\\/:-@\\[-`{-~',
};

/** Thrown for a construct the translation does not know; the rule is then left out, never half-translated. */
export class GoRegExpError extends Error {}

const isLetter = (c: string) => /^[A-Za-z]$/.test(c);
const bothCases = (c: string) => (isLetter(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c);

interface Flags {
  i: boolean;
  s: boolean;
}

/** The JavaScript source and flags for a Go pattern. */
export function translateGoRegExp(source: string): { source: string; flags: string } {
  let pos = 0;

  function parseFlags(spec: string, base: Flags): Flags {
    const out = { ...base };
    let on = true;
    for (const ch of spec) {
      if (ch === '-') on = false;
      else if (ch === 'i' || ch === 's') out[ch] = on;
      else throw new GoRegExpError(`flag ${ch} in (?${spec})`);
    }
    return out;
  }

  function parseClass(flags: Flags): string {
    // At '['.
    pos++;
    let out = '[';
    if (source[pos] === '^') {
      out += '^';
      pos++;
    }
    let first = true;
    const extra: string[] = [];
    while (pos < source.length && (source[pos] !== ']' || first)) {
      first = false;
      if (source.startsWith('[:', pos)) {
        const end = source.indexOf(':]', pos + 2);
        const name = end === -1 ? '' : source.slice(pos + 2, end);
        const expansion = POSIX[name];
        if (expansion === undefined) throw new GoRegExpError(`POSIX class [:${name}:]`);
        out += expansion;
        pos = end + 2;
        continue;
      }
      const ch = source[pos] as string;
      if (ch === '\\') {
        const next = source[pos + 1] ?? '';
        out += `\\${next}`;
        pos += 2;
        continue;
      }
      if (ch === '[') {
        out += '\\[';
        pos++;
        continue;
      }
      // A range a-z under (?i) takes in A-Z as well.
      if (source[pos + 1] === '-' && source[pos + 2] !== undefined && source[pos + 2] !== ']') {
        const to = source[pos + 2] as string;
        out += `${ch}-${to}`;
        if (flags.i && isLetter(ch) && isLetter(to))
          extra.push(`${ch.toLowerCase()}-${to.toLowerCase()}`, `${ch.toUpperCase()}-${to.toUpperCase()}`);
        pos += 3;
        continue;
      }
      out += ch;
      if (flags.i && isLetter(ch)) extra.push(ch.toLowerCase(), ch.toUpperCase());
      pos++;
    }
    if (source[pos] !== ']') throw new GoRegExpError('unterminated character class');
    pos++;
    return `${out}${extra.join('')}]`;
  }

  function parseSequence(flags: Flags, inGroup: boolean): string {
    let out = '';
    let current = flags;
    while (pos < source.length) {
      const ch = source[pos] as string;
      if (ch === ')') {
        if (!inGroup) throw new GoRegExpError('unbalanced )');
        return out;
      }
      if (ch === '\\') {
        const next = source[pos + 1] ?? '';
        if (next === 'z') out += '$';
        else if (next === 'A') out += '^';
        else if (next === 'Q' || next === 'C' || next === 'p' || next === 'P') throw new GoRegExpError(`escape \\${next}`);
        else if (current.i && isLetter(next) && !/[dDwWsSbBnrtfvx]/.test(next)) out += bothCases(next);
        else out += `\\${next}`;
        pos += 2;
        continue;
      }
      if (ch === '[') {
        out += parseClass(current);
        continue;
      }
      if (ch === '(') {
        if (source.startsWith('(?', pos)) {
          const m = /^\(\?([a-zA-Z-]*)(:|\))/.exec(source.slice(pos));
          const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(source.slice(pos));
          if (named) {
            pos += named[0].length;
            out += `(?<${named[1]}>${parseSequence(current, true)})`;
          } else if (m && m[2] === ')') {
            // `(?i)`: from here to the end of the enclosing group.
            current = parseFlags(m[1] as string, current);
            pos += m[0].length;
            continue;
          } else if (m) {
            pos += m[0].length;
            out += `(?:${parseSequence(parseFlags(m[1] as string, current), true)})`;
          } else throw new GoRegExpError(`group ${source.slice(pos, pos + 4)}`);
        } else {
          pos++;
          out += `(${parseSequence(current, true)})`;
        }
        if (source[pos] !== ')') throw new GoRegExpError('unterminated group');
        pos++;
        continue;
      }
      if (ch === '.') out += current.s ? '[\\s\\S]' : '.';
      else if (current.i && isLetter(ch)) out += bothCases(ch);
      else if (ch === '{') {
        // A repeat {n}, {n,}, {n,m} passes as is; a lone brace is a literal in Go.
        const rep = /^\{\d+(,\d*)?\}/.exec(source.slice(pos));
        if (rep) {
          out += rep[0];
          pos += rep[0].length;
          continue;
        }
        out += '\\{';
      } else if (ch === '}') out += '\\}';
      else out += ch;
      pos++;
    }
    if (inGroup) throw new GoRegExpError('unterminated group');
    return out;
  }

  const translated = parseSequence({ i: false, s: false }, false);
  return { source: translated, flags: '' };
}

/** A global JavaScript RegExp for a Go pattern; throws GoRegExpError for what it cannot translate. */
export function goRegExp(source: string): RegExp {
  const t = translateGoRegExp(source);
  return new RegExp(t.source, `g${t.flags}`);
}
