import { defaultDeps } from '../shared/deps.js';
import { createHandler } from './index.js';

export const handler = createHandler(defaultDeps());
