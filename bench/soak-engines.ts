import { startEngines } from '../local/engines.js';

/** The embedded engines in a process of their own, so the soak can measure them apart from the runtime (its credential in the environment). */
const engines = await startEngines({
  dataDir: null,
  credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY! },
});
console.log(JSON.stringify({ dynamoEndpoint: engines.dynamoEndpoint, sqsEndpoint: engines.sqsEndpoint }));
const stop = () => void engines.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
