/**
 * Reads the human-readable description of an ICC profile (`desc` tag: v2 `desc` ASCII or v4 `mluc`
 * UTF-16), with every offset checked against the profile's length.
 */
export function iccDescription(icc: Buffer | undefined): string | undefined {
  if (icc === undefined || icc.length < 132) return undefined;
  const count = icc.readUInt32BE(128);
  for (let i = 0; i < Math.min(count, 200); i++) {
    const entry = 132 + i * 12;
    if (entry + 12 > icc.length) return undefined;
    if (icc.toString('latin1', entry, entry + 4) !== 'desc') continue;
    const offset = icc.readUInt32BE(entry + 4);
    const size = icc.readUInt32BE(entry + 8);
    if (offset + size > icc.length || size < 12) return undefined;
    const type = icc.toString('latin1', offset, offset + 4);
    if (type === 'desc') {
      const length = icc.readUInt32BE(offset + 8);
      if (offset + 12 + length > icc.length) return undefined;
      return clean(icc.toString('latin1', offset + 12, offset + 12 + length));
    }
    if (type === 'mluc' && size >= 28) {
      const recordLength = icc.readUInt32BE(offset + 20);
      const stringOffset = icc.readUInt32BE(offset + 24);
      const start = offset + stringOffset;
      if (start + recordLength > icc.length) return undefined;
      return clean(
        icc
          .subarray(start, start + recordLength)
          .swap16()
          .toString('utf16le'),
      );
    }
    return undefined;
  }
  return undefined;
}

function clean(text: string): string | undefined {
  const value = text.replace(/\0+/g, '').trim();
  return value === '' ? undefined : value;
}
