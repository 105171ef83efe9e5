import { readFileSync } from 'node:fs';

/** The published signature vectors (spec/README.md), shared with the service's signer test. */
export type Vector = {
  name: string;
  description: string;
  secret: string;
  timestamp: string;
  body: string;
  bodyBase64: string;
  expected: string;
  header: string;
  valid: boolean;
  reason?: string;
};

export const VECTORS_FILE = new URL('../../../spec/webhook-signature-vectors.json', import.meta.url);
export const VECTORS = JSON.parse(readFileSync(VECTORS_FILE, 'utf8')) as Vector[];
export const vector = (name: string) => VECTORS.find((v) => v.name === name)!;
