/** What the image encoders hand back to be written: a sharp pipeline with its encoder set, or bytes. */
import { writeFile } from 'node:fs/promises';

export interface EncodedOutput {
  toFile(path: string): Promise<{ size: number }>;
}

/** Bytes already encoded (a tuned search or oxipng produced them), written as they are. */
export function bufferedOutput(buffer: Buffer): EncodedOutput {
  return {
    async toFile(path) {
      await writeFile(path, buffer);
      return { size: buffer.length };
    },
  };
}
