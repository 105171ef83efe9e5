import { inject } from 'vitest';

// Before a test file loads: test/support/runtime.ts reads TEST_DYNAMODB_ENDPOINT when it is imported.
Object.assign(process.env, inject('engineEnv'));
