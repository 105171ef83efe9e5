import { defaultDeps } from '../shared/deps.js';
import { createDispatcher } from './handlers.js';

export const handler = createDispatcher(defaultDeps());
