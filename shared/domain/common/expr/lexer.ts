import { ExpressionError } from './errors';

/**
 * The lexer: source text to tokens, each with its 0-based start offset. Whitespace (space, tab,
 * CR, LF) separates tokens; anything else that is not a token is an error at its offset.
 */
export type TokenKind = 'num' | 'ident' | 'op' | 'lparen' | 'rparen' | 'comma' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The token's text (`op` tokens: `+ - * / > >= < <= == !=`). */
  text: string;
  pos: number;
  /** Numbers only: the parsed value. */
  value?: number;
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c);
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** Hints for characters people often type from other languages. */
const HINTS: Record<string, string> = {
  '=': "unexpected '=' (compare with ==)",
  '!': "unexpected '!' (use != or not)",
  '&': "unexpected '&' (use and)",
  '|': "unexpected '|' (use or)",
  '^': "unexpected '^' (there is no power operator)",
  '%': "unexpected '%' (there is no modulo operator)",
};

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c) || (c === 46 && i + 1 < n && isDigit(source.charCodeAt(i + 1)))) {
      while (i < n && isDigit(source.charCodeAt(i))) i++;
      if (i < n && source.charCodeAt(i) === 46) {
        i++;
        while (i < n && isDigit(source.charCodeAt(i))) i++;
      }
      const e = source.charCodeAt(i);
      if (i < n && (e === 101 || e === 69)) {
        let j = i + 1;
        const sign = source.charCodeAt(j);
        if (sign === 43 || sign === 45) j++;
        if (j < n && isDigit(source.charCodeAt(j))) {
          while (j < n && isDigit(source.charCodeAt(j))) j++;
          i = j;
        } else {
          throw new ExpressionError('malformed number exponent', start);
        }
      }
      if (i < n && isIdentPart(source.charCodeAt(i))) {
        throw new ExpressionError(`malformed number '${source.slice(start, i + 1)}'`, start);
      }
      const text = source.slice(start, i);
      const value = Number(text);
      if (!Number.isFinite(value)) throw new ExpressionError(`number '${text}' is too large`, start);
      tokens.push({ kind: 'num', text, pos: start, value });
      continue;
    }
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(source.charCodeAt(i))) i++;
      tokens.push({ kind: 'ident', text: source.slice(start, i), pos: start });
      continue;
    }
    const ch = source[i] as string;
    const two = source.slice(i, i + 2);
    if (two === '>=' || two === '<=' || two === '==' || two === '!=') {
      tokens.push({ kind: 'op', text: two, pos: start });
      i += 2;
      continue;
    }
    switch (ch) {
      case '+':
      case '-':
      case '*':
      case '/':
      case '>':
      case '<':
        tokens.push({ kind: 'op', text: ch, pos: start });
        break;
      case '(':
        tokens.push({ kind: 'lparen', text: ch, pos: start });
        break;
      case ')':
        tokens.push({ kind: 'rparen', text: ch, pos: start });
        break;
      case ',':
        tokens.push({ kind: 'comma', text: ch, pos: start });
        break;
      default: {
        const hint = HINTS[ch];
        if (hint) throw new ExpressionError(hint, start);
        // A character outside the Basic Multilingual Plane is two UTF-16 units: show it whole.
        const shown = String.fromCodePoint(source.codePointAt(i) ?? c);
        throw new ExpressionError(`unexpected character ${JSON.stringify(shown)}`, start);
      }
    }
    i++;
  }
  tokens.push({ kind: 'eof', text: '', pos: n });
  return tokens;
}
