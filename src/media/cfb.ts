/**
 * Legacy Microsoft Office files (DOC, XLS, PPT) are all OLE2 compound files, which file-type reports as
 * `cfb` without the flavour. The flavour is the name of a stream in the file's directory: `WordDocument`,
 * `Workbook` (or Excel 5's `Book`), `PowerPoint Document`. The directory's sectors are followed through
 * the FAT, a few bytes at a time, never reading the whole file.
 */
import { open } from 'node:fs/promises';

const STREAMS: Record<string, 'doc' | 'xls' | 'ppt'> = {
  WordDocument: 'doc',
  Workbook: 'xls',
  Book: 'xls',
  'PowerPoint Document': 'ppt',
};

/** Each directory entry is 128 bytes; its name is UTF-16LE, with the byte length at offset 64. */
const ENTRY = 128;

/** Directory sectors read at most: 64 sectors hold 256 entries (512-byte sectors), far more than Office writes. */
const MAX_DIRECTORY_SECTORS = 64;

export async function legacyOfficeFormat(path: string): Promise<'doc' | 'xls' | 'ppt' | undefined> {
  const handle = await open(path, 'r');
  try {
    const read = async (offset: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    };
    const header = await read(0, 512);
    if (header.length < 512) return undefined;
    const sectorShift = header.readUInt16LE(0x1e);
    if (sectorShift !== 9 && sectorShift !== 12) return undefined;
    const sectorSize = 1 << sectorShift;
    const sectorAt = (sector: number) => (sector + 1) * sectorSize;
    // The FAT sectors listed in the header (109 of them: files up to ~7 MB with 512-byte sectors).
    const fatSectors: number[] = [];
    for (let i = 0; i < 109; i++) {
      const sector = header.readUInt32LE(0x4c + i * 4);
      if (sector < 0xfffffffa) fatSectors.push(sector);
    }
    const perFatSector = sectorSize / 4;
    const next = async (sector: number): Promise<number> => {
      const fat = fatSectors[Math.floor(sector / perFatSector)];
      if (fat === undefined) return 0xfffffffe;
      const entry = await read(sectorAt(fat) + (sector % perFatSector) * 4, 4);
      return entry.length === 4 ? entry.readUInt32LE(0) : 0xfffffffe;
    };
    let sector = header.readUInt32LE(0x30);
    for (let count = 0; sector < 0xfffffffa && count < MAX_DIRECTORY_SECTORS; count++) {
      const entries = await read(sectorAt(sector), sectorSize);
      for (let at = 0; at + ENTRY <= entries.length; at += ENTRY) {
        const length = Math.min(64, entries.readUInt16LE(at + 64));
        const name = entries.toString('utf16le', at, at + Math.max(0, length - 2));
        const format = Object.hasOwn(STREAMS, name) ? STREAMS[name] : undefined;
        if (format !== undefined) return format;
      }
      sector = await next(sector);
    }
    return undefined;
  } finally {
    await handle.close();
  }
}
