/**
 * The ZIP container of office documents (OOXML and ODF), read and written here with node:zlib: the
 * central directory is read first, so the entry count and the declared unzipped size are refused above
 * the limits before anything is inflated, and each entry is inflated with its declared size as the
 * output cap (a zip bomb stops at the cap). Zip64, encryption and methods other than stored/deflate are
 * not used by office suites and are refused.
 */
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { UnprocessableInputError } from '../../errors/catalog.ts';

export interface ZipEntry {
  name: string;
  data: Buffer;
  /** MS-DOS time and date as stored, kept so a re-pack does not change them. */
  time: number;
  date: number;
}

export interface ZipLimits {
  maxEntries: number;
  maxUnzippedBytes: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

const broken = (why: string) =>
  new UnprocessableInputError(`The document's ZIP container is damaged: ${why}.`);

export function readZip(bytes: Buffer, limits: ZipLimits): ZipEntry[] {
  const eocd = findEndOfDirectory(bytes);
  const count = bytes.readUInt16LE(eocd + 10);
  const directoryOffset = bytes.readUInt32LE(eocd + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw broken('Zip64 is not supported');
  if (count > limits.maxEntries) {
    throw new UnprocessableInputError(
      `The document has ${count} parts; at most ${limits.maxEntries} are accepted.`,
    );
  }
  const headers: {
    name: string;
    method: number;
    flags: number;
    crc: number;
    size: number;
    compressed: number;
    local: number;
    time: number;
    date: number;
  }[] = [];
  let at = directoryOffset;
  let declared = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) throw broken('bad central directory');
    const nameLength = bytes.readUInt16LE(at + 28);
    const header = {
      flags: bytes.readUInt16LE(at + 8),
      method: bytes.readUInt16LE(at + 10),
      time: bytes.readUInt16LE(at + 12),
      date: bytes.readUInt16LE(at + 14),
      crc: bytes.readUInt32LE(at + 16),
      compressed: bytes.readUInt32LE(at + 20),
      size: bytes.readUInt32LE(at + 24),
      local: bytes.readUInt32LE(at + 42),
      name: bytes.toString('utf8', at + 46, at + 46 + nameLength),
    };
    declared += header.size;
    if (declared > limits.maxUnzippedBytes) {
      throw new UnprocessableInputError(
        `The document unpacks to more than ${limits.maxUnzippedBytes} bytes, the most accepted.`,
      );
    }
    headers.push(header);
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return headers.map((h) => {
    if (h.flags & 1) throw broken('encrypted parts are not supported');
    if (h.local + 30 > bytes.length || bytes.readUInt32LE(h.local) !== LOCAL)
      throw broken('bad local header');
    const start = h.local + 30 + bytes.readUInt16LE(h.local + 26) + bytes.readUInt16LE(h.local + 28);
    const raw = bytes.subarray(start, start + h.compressed);
    if (raw.length !== h.compressed) throw broken('a part is cut short');
    let data: Buffer;
    if (h.method === 0) data = Buffer.from(raw);
    else if (h.method === 8) {
      try {
        data = inflateRawSync(raw, { maxOutputLength: Math.max(1, h.size) });
      } catch (error) {
        throw new UnprocessableInputError(`The document's part ${h.name} could not be unpacked.`, error);
      }
    } else throw broken(`compression method ${h.method} is not supported`);
    if (data.length !== h.size || crc32(data) >>> 0 !== h.crc)
      throw broken(`part ${h.name} fails its checksum`);
    return { name: h.name, data, time: h.time, date: h.date };
  });
}

function findEndOfDirectory(bytes: Buffer): number {
  const earliest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let at = bytes.length - 22; at >= earliest; at--) {
    if (bytes.readUInt32LE(at) === EOCD) return at;
  }
  throw broken('no central directory');
}

/**
 * Entries in the given order; each deflated at `level` (9 unless a throwaway copy asks for speed) unless
 * storing is smaller. ODF's `mimetype` must stay first and stored (the format's rule), so readers can sniff
 * it at a fixed offset.
 */
export function writeZip(entries: ZipEntry[], level = 9): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const deflated =
      entry.name === 'mimetype' ? undefined : deflateRawSync(entry.data, { level, memLevel: 9 });
    const store = deflated === undefined || deflated.length >= entry.data.length;
    const body = store ? entry.data : deflated;
    const crc = crc32(entry.data) >>> 0;
    const utf8 = /[^\x20-\x7e]/.test(entry.name) ? 0x0800 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(utf8, 6);
    local.writeUInt16LE(store ? 0 : 8, 8);
    local.writeUInt16LE(entry.time, 10);
    local.writeUInt16LE(entry.date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL, 0);
    central.writeUInt16LE(20, 4);
    local.copy(central, 6, 4, 30); // version needed .. name length: the same fields in the same order
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
