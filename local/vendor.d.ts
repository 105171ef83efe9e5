declare module 'dynalite' {
  import type { Server } from 'node:http';
  type Options = { path?: string; createTableMs?: number; deleteTableMs?: number; updateTableMs?: number };
  export default function dynalite(options?: Options): Server;
}
