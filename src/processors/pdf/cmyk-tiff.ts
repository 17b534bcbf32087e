/**
 * Raw 8-bit CMYK samples wrapped as an uncompressed TIFF: the one container libvips (sharp) reads as CMYK
 * without converting it, so a PDF's CMYK image can be written as a CMYK JPEG sample for sample.
 */

const SHORT = 3;
const LONG = 4;

export function cmykTiff(samples: Buffer, width: number, height: number): Buffer {
  // Tag, type, count, value; BitsPerSample (258) and StripOffsets (273) point after the directory.
  const entries: [number, number, number, number][] = [
    [256, LONG, 1, width], // ImageWidth
    [257, LONG, 1, height], // ImageLength
    [258, SHORT, 4, 0], // BitsPerSample: 8,8,8,8 (offset filled below)
    [259, SHORT, 1, 1], // Compression: none
    [262, SHORT, 1, 5], // PhotometricInterpretation: separated (CMYK)
    [273, LONG, 1, 0], // StripOffsets (filled below)
    [277, SHORT, 1, 4], // SamplesPerPixel
    [278, LONG, 1, height], // RowsPerStrip: one strip
    [279, LONG, 1, samples.length], // StripByteCounts
    [284, SHORT, 1, 1], // PlanarConfiguration: interleaved
    [332, SHORT, 1, 1], // InkSet: CMYK
  ];
  const directory = 8;
  const bitsPerSample = directory + 2 + entries.length * 12 + 4;
  const data = bitsPerSample + 8;
  const tiff = Buffer.alloc(data + samples.length);
  tiff.write('II', 0, 'latin1');
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(directory, 4);
  tiff.writeUInt16LE(entries.length, directory);
  for (const [i, [tag, type, count, given]] of entries.entries()) {
    const at = directory + 2 + i * 12;
    const value = tag === 258 ? bitsPerSample : tag === 273 ? data : given;
    tiff.writeUInt16LE(tag, at);
    tiff.writeUInt16LE(type, at + 2);
    tiff.writeUInt32LE(count, at + 4);
    if (type === SHORT && count === 1) tiff.writeUInt16LE(value, at + 8);
    else tiff.writeUInt32LE(value, at + 8);
  }
  tiff.writeUInt32LE(0, directory + 2 + entries.length * 12); // no next directory
  for (let i = 0; i < 4; i++) tiff.writeUInt16LE(8, bitsPerSample + i * 2);
  samples.copy(tiff, data);
  return tiff;
}
