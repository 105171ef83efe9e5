import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMA_TYPES_FILE, schemaTypes } from './schema-types.js';

writeFileSync(SCHEMA_TYPES_FILE, await schemaTypes());
console.log(`wrote ${fileURLToPath(SCHEMA_TYPES_FILE)}`);
