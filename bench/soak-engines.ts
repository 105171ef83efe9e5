import { startEngines } from '../local/engines.js';

/** The embedded engines in a process of their own, so the soak can measure them apart from the runtime. */
const engines = await startEngines({ dataDir: null });
console.log(JSON.stringify({ dynamoEndpoint: engines.dynamoEndpoint, sqsEndpoint: engines.sqsEndpoint }));
const stop = () => void engines.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
