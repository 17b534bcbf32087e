/**
 * An ICC v2 matrix/TRC profile describing the colour space of a PNG's gAMA/cHRM chunks, so libvips can
 * colour-manage such a file like any profiled input (it ignores the chunks themselves). Built from the
 * ICC.1:2001-04 layout: header, tag table, description, white point, the three colorants adapted to the
 * D50 connection space with Bradford, and parametric tone curves ('para': an exact power or the sRGB curve,
 * where the v2 'curv' single gamma would round 1/0.45455 to 563/256).
 */
import { crc32, deflateSync } from 'node:zlib';
import { adapt, type PngColourTags, rgbToXyz, SRGB } from '../shared/metric/png-colour.ts';

const D50: [number, number] = [0.3457, 0.3585];
/** The ICC connection space's white (ICC.1 7.2.16), written as the header's illuminant and the white point. */
const D50_XYZ = [0.9642, 1, 0.8249];

const s15f16 = (v: number) => {
  const out = Buffer.alloc(4);
  out.writeInt32BE(Math.round(v * 65536));
  return out;
};
const xyzType = (v: number[]) => Buffer.concat([Buffer.from('XYZ \0\0\0\0', 'latin1'), ...v.map(s15f16)]);

function paraType(gamma: number | undefined): Buffer {
  const head = Buffer.from('para\0\0\0\0', 'latin1');
  if (gamma !== undefined) return Buffer.concat([head, Buffer.from([0, 0, 0, 0]), s15f16(1 / gamma)]);
  // Function type 3: Y = (aX + b)^g for X ≥ d, else cX — the sRGB curve.
  const sRGB = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045];
  return Buffer.concat([head, Buffer.from([0, 3, 0, 0]), ...sRGB.map(s15f16)]);
}

function descType(text: string): Buffer {
  const ascii = Buffer.from(`${text}\0`, 'latin1');
  const count = Buffer.alloc(4);
  count.writeUInt32BE(ascii.length);
  // Then an empty Unicode and an empty ScriptCode description (67 bytes of zeros after the two counts).
  return Buffer.concat([
    Buffer.from('desc\0\0\0\0', 'latin1'),
    count,
    ascii,
    Buffer.alloc(4 + 4 + 2 + 1 + 67),
  ]);
}

const pad4 = (b: Buffer) => (b.length % 4 === 0 ? b : Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]));

/** The profile for `tags` (stored values: gamma curve or sRGB curve; primaries and white or sRGB's). */
export function profileForTags(tags: PngColourTags): Buffer {
  const chromaticities = tags.chromaticities ?? SRGB;
  const white = chromaticities[0]!;
  // Colorants in the D50 connection space: RGB → XYZ (own white) → Bradford to D50.
  const toD50 = adapt(white, D50);
  const m = rgbToXyz(chromaticities);
  const column = (c: number) =>
    [0, 1, 2].map(
      (r) => toD50[r * 3]! * m[c]! + toD50[r * 3 + 1]! * m[3 + c]! + toD50[r * 3 + 2]! * m[6 + c]!,
    );
  const trc = paraType(tags.gamma);
  const gammaText = tags.gamma === undefined ? 'sRGB curve' : `gamma ${(1 / tags.gamma).toFixed(4)}`;
  const primariesText = tags.chromaticities === undefined ? 'sRGB primaries' : 'cHRM primaries';
  const tagList: [string, Buffer][] = [
    ['desc', descType(`PNG gAMA/cHRM: ${gammaText}, ${primariesText}`)],
    // Relative colorimetric conversions (what libvips asks for) use only the adapted colorants.
    ['wtpt', xyzType(D50_XYZ)],
    ['rXYZ', xyzType(column(0))],
    ['gXYZ', xyzType(column(1))],
    ['bXYZ', xyzType(column(2))],
    ['rTRC', trc],
    ['gTRC', trc],
    ['bTRC', trc],
    ['cprt', Buffer.from('text\0\0\0\0No copyright, use freely\0', 'latin1')],
  ];
  const tableSize = 4 + 12 * tagList.length;
  let offset = 128 + tableSize;
  const table = Buffer.alloc(tableSize);
  table.writeUInt32BE(tagList.length);
  const data: Buffer[] = [];
  tagList.forEach(([signature, body], i) => {
    table.write(signature, 4 + 12 * i, 'latin1');
    table.writeUInt32BE(offset, 8 + 12 * i);
    table.writeUInt32BE(body.length, 12 + 12 * i);
    const padded = pad4(body);
    data.push(padded);
    offset += padded.length;
  });
  const header = Buffer.alloc(128);
  header.writeUInt32BE(offset, 0);
  header.writeUInt32BE(0x02400000, 8);
  header.write('mntrRGB XYZ ', 12, 'latin1');
  header.write('acsp', 36, 'latin1');
  Buffer.concat(D50_XYZ.map(s15f16)).copy(header, 68);
  return Buffer.concat([header, table, ...data]);
}

/** A PNG chunk (length, type, data, CRC). */
function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])));
  return Buffer.concat([head, body, crc]);
}

/** `png` with its gAMA and cHRM chunks replaced by an iCCP chunk holding `profile`. */
export function withProfileForTags(png: Buffer, profile: Buffer): Buffer {
  const parts = [png.subarray(0, 8)];
  for (let at = 8; at + 12 <= png.length; ) {
    const end = at + 12 + png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type !== 'gAMA' && type !== 'cHRM') parts.push(png.subarray(at, end));
    if (type === 'IHDR')
      parts.push(
        chunk('iCCP', Buffer.concat([Buffer.from('PNG gAMA cHRM\0\0', 'latin1'), deflateSync(profile)])),
      );
    at = end;
  }
  return Buffer.concat(parts);
}
