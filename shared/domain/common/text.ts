/**
 * Text that goes into one line of a message header (an e-mail subject, a chat title): every run of
 * C0 and C1 control characters (CR, LF, NEL, tab, NUL…), DEL and the Unicode line and paragraph
 * separators becomes one space, so a name can never start a new header line.
 */
export function oneLine(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to remove them
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}
