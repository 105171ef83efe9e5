import { defaultDeps } from '../shared/deps.js';
import { createSweeper } from './handlers.js';

export const handler = createSweeper(defaultDeps());
