import { lookup } from 'node:dns/promises';
import type { Resolver } from '#domain/url-safety';

/** The system resolver, every address of the name (tests inject their own). */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
