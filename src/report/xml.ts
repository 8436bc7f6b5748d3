/**
 * Text made safe for XML 1.0 content and attribute values: `& < > "` escaped; tab, CR and LF written as character
 * references (so attribute values keep them); characters XML 1.0 forbids (other control characters, U+FFFE,
 * U+FFFF, unpaired surrogates) replaced with U+FFFD, since a JUnit file that does not parse is worse than a lost
 * character. Returns the input itself when nothing needs escaping, the common case.
 */
export function xmlEscape(text: string): string {
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x26 || c === 0x3c || c === 0x3e || c === 0x22 || c >= 0xd800) break;
  }
  if (i === text.length) return text;
  let out = text.slice(0, i);
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0xd800 && c !== 0x26 && c !== 0x3c && c !== 0x3e && c !== 0x22) {
      out += text[i];
      continue;
    }
    switch (c) {
      case 0x26:
        out += '&amp;';
        continue;
      case 0x3c:
        out += '&lt;';
        continue;
      case 0x3e:
        out += '&gt;';
        continue;
      case 0x22:
        out += '&quot;';
        continue;
      case 0x09:
        out += '&#9;';
        continue;
      case 0x0a:
        out += '&#10;';
        continue;
      case 0x0d:
        out += '&#13;';
        continue;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text.slice(i, i + 2);
        i++;
        continue;
      }
    } else if (c >= 0xe000 && c !== 0xfffe && c !== 0xffff) {
      out += text[i];
      continue;
    }
    out += '\ufffd';
  }
  return out;
}
